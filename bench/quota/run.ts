// `npm run bench:quota [-- --jobs 200] [--quota 10] [--creates-per-minute 160] [--video-ms 3000]
// [--workers 3] [--server-config name=value]... [--out bench/results/quota]`: a provider that allows `quota` video tasks in flight and
// `creates-per-minute` creates in any 60 s, answering 429 beyond either, and `jobs` jobs of two priorities
// started at once, three ways side by side in one run (issues 26 and 36):
// - admission: the workers' VIDEO_MAX_TASKS_IN_FLIGHT and VIDEO_MAX_CREATES_PER_MINUTE equal the
//   provider's limits, `workers` workers on one task queue;
// - no admission: the same jobs with no limit configured: 429s, retries, failures;
// - plain script: no Temporal, a loop that keeps `quota` creates in flight within the rate and polls each
//   task, the floor.
// Figures: wall time against the ideal (both limits simulated, provider-timeline.ts), the provider's
// utilization, the slot's idle time as the provider sees it (from a task's final state to the next create
// on its slot, beyond what the rate window forced) with the chain that idle time runs along (callback,
// confirming query, release, grant, create), the wait of each priority, 429s, and the billable actions
// admission adds per job, counted from the histories (runs and gate). Writes <out>.json and <out>.md.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import type { Client } from '@temporalio/client';
import { Client as TemporalClient } from '@temporalio/client';
import { bundleWorkflowCode, DefaultLogger, Runtime } from '@temporalio/worker';
import { defaultPayloadConverter } from '@temporalio/common';
import { startReviewThenGenerate } from '../../src/client/start.js';
import { defaultVideoQuotaKey } from '../../src/config/admission.js';
import { admissionGateId } from '../../src/contract/index.js';
import { freePort, startDevServer } from '../../src/dev/temporal-dev-server.js';
import type { Sandbox } from 'temporal-review-video-sandbox';
import type { ReviewThenGenerateInput } from '../../src/job/input.js';
import { workflowPreloadModules, workflowsPath } from '../../src/workflows-path.js';
import { costOf } from '../../test/support/history-cost.js';
import {
  receiverEnv,
  sandboxServiceEnv,
  startServices,
  startServicesStack,
} from '../../test/support/services-stack.js';
import { WORKER_READY, workerArgs } from '../../test/support/worker-command.js';
import { round } from '../lib/stats.js';
import { Supervised } from '../soak/supervisor.js';
import { quotaSection, type QuotaResults, type QuotaVariant } from './report.js';
import { chainSteps, idealCreates, spread, turnovers, type ChainTimes, type Limits } from './provider-timeline.js';

const { values: args } = parseArgs({
  options: {
    jobs: { type: 'string', default: '200' },
    quota: { type: 'string', default: '10' },
    'creates-per-minute': { type: 'string', default: '160' },
    'video-ms': { type: 'string', default: '3000' },
    workers: { type: 'string', default: '3' },
    out: { type: 'string', default: 'bench/results/quota' },
    // A dynamic-config value for the dev server, e.g. system.enableActivityEagerExecution=true (repeatable).
    'server-config': { type: 'string', multiple: true, default: [] },
  },
});
const JOBS = Number(args.jobs);
const QUOTA = Number(args.quota);
const PER_MINUTE = Number(args['creates-per-minute']);
const VIDEO_MS = Number(args['video-ms']);
const WORKERS = Number(args.workers);
const WINDOW_MS = 60_000;
const LIMITS: Limits = { maxInFlight: QUOTA, maxPerWindow: PER_MINUTE, windowMs: WINDOW_MS };
const LATENCY_MS = 80;
/** Two priorities, alternating: the gate must serve the first before the second while both wait. */
const PRIORITIES = [1, 3] as const;
const priorityOf = (i: number) => PRIORITIES[i % PRIORITIES.length]!;
const silent = { log() {}, info() {}, warn() {}, error() {}, debug() {}, trace() {} };
const say = (line: string) => console.log(`[bench:quota] ${line}`);
const IDEAL_MS = (() => {
  const c = idealCreates(JOBS, VIDEO_MS, LIMITS);
  return Math.max(...c) + VIDEO_MS;
})();

const marker = (variant: string, i: number) => `quota-bench ${variant} #${i}#`;
const jobIndexOf = (body: unknown): number | undefined => {
  const text = JSON.stringify(body ?? '');
  const m = /#(\d+)#/.exec(text);
  return m ? Number(m[1]) : undefined;
};

/** The successful creates of this variant, each with its job and task. */
function createsOf(sandbox: Sandbox, start: number) {
  return sandbox
    .requests()
    .filter((r) => r.operation === 'video.create' && r.at >= start && r.status === 200)
    .map((r) => ({
      at: r.at,
      job: jobIndexOf(r.body),
      taskId: (r.response as { id?: string } | undefined)?.id,
    }));
}

/** Provider-side figures: utilization, idle slot time beyond the limits, 429s, peak in flight. */
function providerFigures(sandbox: Sandbox, start: number, t0: number, startedAt: Map<number, number>) {
  const creates = createsOf(sandbox, start);
  const at = creates.map((c) => c.at).sort((a, b) => a - b);
  const ends = at.map((c) => c + VIDEO_MS);
  const span = Math.max(...ends) - t0;
  const stats = sandbox.quotaStats().video;
  const waitByPriority: Record<string, ReturnType<typeof spread>> = {};
  for (const p of PRIORITIES) {
    waitByPriority[String(p)] = spread(
      creates.flatMap((c) =>
        c.job !== undefined && priorityOf(c.job) === p && startedAt.has(c.job) ? [c.at - startedAt.get(c.job)!] : [],
      ),
    );
  }
  return {
    utilization: round((creates.length * VIDEO_MS) / (QUOTA * span), 3),
    slotIdleMs: spread(turnovers(at, ends, LIMITS).map((t) => t.idleMs)),
    createWaitByPriorityMs: waitByPriority,
    refused: stats.refused,
    refusedBy: stats.refusedBy,
    peakInFlight: stats.peakInFlight,
  };
}

function job(variant: string, i: number): ReviewThenGenerateInput {
  return {
    task: { model: 'video-model-1', content: [{ type: 'text', text: marker(variant, i) }], duration: 5 },
    callbacks: true,
    priority: priorityOf(i),
    timing: { videoPollIntervalMs: 1_000 },
  };
}

type History = Awaited<ReturnType<ReturnType<Client['workflow']['getHandle']>['fetchHistory']>>;
type HistoryEvent = NonNullable<History['events']>[number];
const eventMs = (e: HistoryEvent | undefined) =>
  e?.eventTime?.seconds != null
    ? Number(e.eventTime.seconds) * 1000 + Math.floor((e.eventTime.nanos ?? 0) / 1e6)
    : undefined;

/**
 * The way from each freed slot to the create that reused it: the k-th task to end (its callback, its
 * confirming query, its job's release) and the create `QUOTA` places later (its job's grant). Pairing by
 * order is exact for the slot count, approximate for which job got which slot.
 */
function chainsOf(
  sandbox: Sandbox,
  start: number,
  histories: Map<number, History>,
  releasesAtGate: Map<string, number>,
): ChainTimes[] {
  const creates = createsOf(sandbox, start).sort((a, b) => a.at - b.at);
  const callbacks = sandbox.callbacks();
  const gets = sandbox.requests().filter((r) => r.operation === 'video.get' && r.at >= start && r.status === 200);
  const signalTimes = (job: number | undefined, match: (e: HistoryEvent) => boolean) =>
    job === undefined ? undefined : eventMs((histories.get(job)?.events ?? []).find(match));
  const chains: ChainTimes[] = [];
  for (let k = 0; k + QUOTA < creates.length; k++) {
    const freed = creates[k]!;
    const next = creates[k + QUOTA]!;
    const taskFinal = freed.at + VIDEO_MS;
    // The callback that said the task was final (an earlier one said `running`).
    const callback = callbacks.find(
      (c) => c.taskId === freed.taskId && c.outcome === 'delivered' && !['queued', 'running'].includes(c.status),
    )?.at;
    const confirm = gets.find((g) => g.taskId === freed.taskId && callback !== undefined && g.at >= callback);
    // The rate window may hold the next create back after the release: that wait is the provider's.
    const windowOpenAt = k + QUOTA >= PER_MINUTE ? creates[k + QUOTA - PER_MINUTE]!.at + WINDOW_MS : 0;
    chains.push({
      taskFinal,
      windowOpenAt,
      created: next.at,
      ...(callback !== undefined ? { callback } : {}),
      ...(confirm ? { confirmed: confirm.answeredAt ?? confirm.at } : {}),
      // Given back by the query that read the task final (the gate's history), or by the run itself.
      ...optional(
        'released',
        releasesAtGate.get(requestIdOf(histories.get(freed.job ?? -1)) ?? '') ??
          signalTimes(
            freed.job,
            (e) => e.signalExternalWorkflowExecutionInitiatedEventAttributes?.signalName === 'releaseSlot',
          ),
      ),
      ...optional(
        'granted',
        signalTimes(next.job, (e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'slotGranted'),
      ),
    });
  }
  return chains;
}

/** The quota request of a job's video create: its first create activity's `admission.requestId`. */
function requestIdOf(history: History | undefined): string | undefined {
  const create = (history?.events ?? []).find(
    (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'rtgCreateVideoTask',
  );
  const payload = create?.activityTaskScheduledEventAttributes?.input?.payloads?.[0];
  if (!payload) return undefined;
  return (defaultPayloadConverter.fromPayload(payload) as { admission?: { requestId?: string } }).admission?.requestId;
}

/** When each request's releaseSlot signal reached the gate, from the gate's histories. */
function releasesIn(history: History, into: Map<string, number>): void {
  for (const e of history.events ?? []) {
    const signal = e.workflowExecutionSignaledEventAttributes;
    const payload = signal?.signalName === 'releaseSlot' ? signal.input?.payloads?.[0] : undefined;
    if (!payload) continue;
    const { requestId } = defaultPayloadConverter.fromPayload(payload) as { requestId: string };
    const at = eventMs(e);
    if (at !== undefined && !into.has(requestId)) into.set(requestId, at);
  }
}

function optional<K extends string>(key: K, value: number | undefined): Partial<Record<K, number>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, number>);
}

async function withTemporal(
  client: Client,
  server: Awaited<ReturnType<typeof startDevServer>>,
  bundlePath: string,
  variant: string,
  admission: boolean,
): Promise<QuotaVariant> {
  // The sandbox and the callback receiver as every stack has them (test/support/services-stack.ts).
  const services = await startServicesStack(client, {
    sandbox: {
      latencyMs: LATENCY_MS,
      videoDurationMs: VIDEO_MS,
      callbackTimeoutMs: 15_000,
      videoMaxTasksInFlight: QUOTA,
      videoMaxCreatesPerMinute: PER_MINUTE,
    },
  });
  const { sandbox } = services;
  const key = defaultVideoQuotaKey(sandbox.videoBaseUrl);
  const taskQueue = `quota-bench-${variant.replace(/ /g, '-')}-${randomUUID().slice(0, 8)}`;
  // Several worker processes on one task queue, each the production entry point (src/worker.ts) as the
  // README runs it: what they share is the gate, through Temporal.
  const logDir = mkdtempSync(join(tmpdir(), 'bench-quota-'));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    TEMPORAL_ADDRESS: server.address,
    TEMPORAL_NAMESPACE: server.namespace,
    TEMPORAL_TASK_QUEUE: taskQueue,
    ...sandboxServiceEnv(sandbox),
    ...receiverEnv(services),
    WORKFLOW_BUNDLE_PATH: bundlePath,
    LOG_LEVEL: 'info',
    ...(admission
      ? { VIDEO_MAX_TASKS_IN_FLIGHT: String(QUOTA), VIDEO_MAX_CREATES_PER_MINUTE: String(PER_MINUTE) }
      : {}),
  };
  for (const k of ['TEMPORAL_PROFILE', 'TEMPORAL_API_KEY', 'VIDEO_STORE', 'NOTIFY_URL']) delete env[k];
  const workers = Array.from(
    { length: WORKERS },
    (_, i) =>
      new Supervised({
        name: `worker-${i + 1}`,
        command: process.execPath,
        args: workerArgs(),
        env,
        cwd: fileURLToPath(new URL('../..', import.meta.url)),
        logFile: join(logDir, `worker-${i + 1}.log`),
        readyPattern: new RegExp(WORKER_READY),
        restartDelayMs: 500,
      }),
  );
  workers.forEach((w) => w.start());
  await Promise.all(workers.map((w) => w.waitReady(120_000)));
  try {
    const start = Date.now();
    const startedAt = new Map<number, number>();
    const handles = await Promise.all(
      Array.from({ length: JOBS }, async (_, i) => {
        startedAt.set(i, Date.now());
        return startReviewThenGenerate(client, {
          businessKey: `${taskQueue}-${i}`,
          input: job(variant, i),
          taskQueue,
        });
      }),
    );
    const outcomes = await Promise.all(
      handles.map((h) =>
        h.result().then(
          () => true,
          () => false,
        ),
      ),
    );
    const wallMs = Date.now() - start;
    say(`${variant}: ${outcomes.filter(Boolean).length}/${JOBS} succeeded in ${(wallMs / 1000).toFixed(1)} s`);
    let runActions = 0;
    /** What admission added to the runs: creates that only queued (or were refused), grants, the wait's upsert. */
    let admissionInRuns = 0;
    const histories = new Map<number, History>();
    for (const [i, h] of handles.entries()) {
      const history = await client.workflow.getHandle(h.workflowId).fetchHistory();
      histories.set(i, history);
      runActions += costOf(history).actions;
      const events = history.events ?? [];
      const count = (match: (e: HistoryEvent) => boolean) => events.filter(match).length;
      const creates = count((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'rtgCreateVideoTask');
      const grants = count((e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'slotGranted');
      const upserts = count(
        (e) =>
          e.upsertWorkflowSearchAttributesEventAttributes !== undefined &&
          e.upsertWorkflowSearchAttributesEventAttributes !== null,
      );
      // A job that never waits: one create and one upsert (`generating`); `reviewing` is set at its start.
      admissionInRuns += admission ? Math.max(creates - 1, 0) + grants + Math.max(upserts - 1, 0) : 0;
    }
    let gateActions = 0;
    const releasesAtGate = new Map<string, number>();
    if (admission) {
      // Every gate run of the key (continue-as-new chains it), started by this variant.
      for await (const w of client.workflow.list({ query: `WorkflowId = '${admissionGateId(key)}'` })) {
        const gateHistory = await client.workflow.getHandle(w.workflowId, w.runId).fetchHistory();
        gateActions += costOf(gateHistory).actions;
        releasesIn(gateHistory, releasesAtGate);
      }
      await client.workflow.getHandle(admissionGateId(key)).terminate('benchmark over');
    }
    return {
      variant,
      succeeded: outcomes.filter(Boolean).length,
      failed: outcomes.filter((o) => !o).length,
      wallMs,
      ideal: IDEAL_MS,
      ...providerFigures(sandbox, start, start, startedAt),
      ...(admission ? { slotChainMs: chainSteps(chainsOf(sandbox, start, histories, releasesAtGate)) } : {}),
      actionsPerJob: {
        run: round(runActions / JOBS, 2),
        gate: round(gateActions / JOBS, 2),
        admission: round((admissionInRuns + gateActions) / JOBS, 2),
        baseline: round((runActions - admissionInRuns) / JOBS, 2),
      },
    };
  } finally {
    await Promise.all(workers.map((w) => w.stop()));
    await services.close();
  }
}

/** No Temporal: keep `QUOTA` creates in flight within the rate window, poll each task every 500 ms. */
async function plainScript(): Promise<QuotaVariant> {
  // No receiver: the script polls.
  const services = await startServices({
    sandbox: {
      latencyMs: LATENCY_MS,
      videoDurationMs: VIDEO_MS,
      videoMaxTasksInFlight: QUOTA,
      videoMaxCreatesPerMinute: PER_MINUTE,
    },
    timeoutMs: 30_000,
  });
  const { sandbox } = services;
  const { video } = services.clients;
  const sent: number[] = [];
  /**
   * Waits until the create `PER_MINUTE` places back has left the window, plus a margin: the provider
   * counts a create when it admits it, up to a response latency after the script sent it.
   */
  const rateSlot = async () => {
    for (;;) {
      const edge = sent.length >= PER_MINUTE ? sent[sent.length - PER_MINUTE]! + WINDOW_MS + 2 * LATENCY_MS : 0;
      if (Date.now() >= edge) return sent.push(Date.now());
      await new Promise((r) => setTimeout(r, edge - Date.now()));
    }
  };
  try {
    const start = Date.now();
    let next = 0;
    let succeeded = 0;
    const startedAt = new Map<number, number>();
    const lane = async () => {
      while (next < JOBS) {
        const i = next++;
        startedAt.set(i, start);
        await rateSlot();
        const task = await video.createTask({
          model: 'video-model-1',
          content: [{ type: 'text', text: marker('plain', i) }],
          duration: 5,
        } as never);
        for (;;) {
          await new Promise((r) => setTimeout(r, 500));
          const t = await video.getTask(task.id);
          if (t.status === 'succeeded') break;
        }
        succeeded++;
      }
    };
    await Promise.all(Array.from({ length: QUOTA }, lane));
    const wallMs = Date.now() - start;
    say(`plain script: ${succeeded}/${JOBS} in ${(wallMs / 1000).toFixed(1)} s`);
    return {
      variant: 'plain script',
      succeeded,
      failed: JOBS - succeeded,
      wallMs,
      ideal: IDEAL_MS,
      ...providerFigures(sandbox, start, start, startedAt),
    };
  } finally {
    await services.close();
  }
}

Runtime.install({ logger: new DefaultLogger('ERROR') });
const serverConfig = (args['server-config'] ?? []).flatMap((value) => ['--dynamic-config-value', value]);
const server = await startDevServer({
  ui: false,
  extraArgs: ['--metrics-port', String(await freePort()), ...serverConfig],
});
const client = new TemporalClient({ connection: server.env.connection, namespace: server.namespace });
try {
  say(
    `${JOBS} jobs (priorities ${PRIORITIES.join(' and ')}), provider: ${QUOTA} tasks in flight and ${PER_MINUTE} creates ` +
      `per minute, generation ${VIDEO_MS} ms, latency ${LATENCY_MS} ms, ${WORKERS} workers; ideal ${(IDEAL_MS / 1000).toFixed(1)} s`,
  );
  // Bundled once: every worker process of both variants loads it instead of running webpack.
  const bundlePath = join(mkdtempSync(join(tmpdir(), 'bench-quota-bundle-')), 'workflow-bundle.js');
  writeFileSync(
    bundlePath,
    (await bundleWorkflowCode({ workflowsPath, preloadModules: workflowPreloadModules, logger: silent })).code,
  );
  const plain = await plainScript();
  const withAdmission = await withTemporal(client, server, bundlePath, 'admission', true);
  const without = await withTemporal(client, server, bundlePath, 'no admission', false);
  const results: QuotaResults = {
    date: new Date().toISOString(),
    jobs: JOBS,
    quota: QUOTA,
    createsPerMinute: PER_MINUTE,
    workers: WORKERS,
    priorities: [...PRIORITIES],
    videoMs: VIDEO_MS,
    latencyMs: LATENCY_MS,
    ...(args['server-config']?.length ? { serverConfig: args['server-config'] } : {}),
    variants: [withAdmission, without, plain],
  };
  mkdirSync(dirname(args.out!), { recursive: true });
  writeFileSync(`${args.out}.json`, `${JSON.stringify(results, null, 2)}\n`);
  const md = `# Provider quota benchmark\n\n${quotaSection(results, '../../')}`;
  writeFileSync(`${args.out}.md`, md);
  say(`wrote ${args.out}.json and ${args.out}.md`);
} finally {
  await server.teardown();
}
