// `npm run bench:quota [-- --jobs 400] [--quota 20] [--video-ms 3000] [--out bench/results/quota]`:
// a provider that allows `quota` video tasks in flight and answers 429 beyond, and `jobs` jobs started at
// once, three ways side by side in one run (issue 26):
// - admission: the workers' VIDEO_MAX_TASKS_IN_FLIGHT equals the provider's quota (the package today);
// - no admission: the same jobs with no quota configured (what 0.3.0 did before it): 429s, retries, failures;
// - plain script: no Temporal, a loop that keeps `quota` creates in flight and polls each task, the floor.
// Figures: wall time against the ideal (waves of one generation), the provider's utilization while jobs
// wait (busy slot-seconds over available ones), from a slot's release to the next create (p50, p95), 429s,
// and the billable actions admission adds per job, counted from the histories (runs and gate).
// Writes <out>.json and <out>.md.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { Client } from '@temporalio/client';
import { bundleWorkflowCode, DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { createActivities } from '../../src/activities/index.js';
import { startCallbackServer } from '../../src/callbacks/server.js';
import { startReviewThenGenerate } from '../../src/client/start.js';
import { defaultVideoQuotaKey, type AdmissionSettings } from '../../src/config-admission.js';
import { admissionGateId } from '../../src/contract/index.js';
import { freePort, startDevServer } from '../../src/dev/temporal-dev-server.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { ReviewClient } from '../../src/services/review/client.js';
import { VideoClient } from '../../src/services/video/client.js';
import type { ReviewThenGenerateInput } from '../../src/workflows/input.js';
import { workflowPreloadModules, workflowsPath } from '../../src/workflows-path.js';
import { costOf } from '../lib/history-cost.js';
import { percentile, round } from '../lib/stats.js';
import { quotaSection, type QuotaResults, type QuotaVariant } from '../report/quota-section.js';

const { values: args } = parseArgs({
  options: {
    jobs: { type: 'string', default: '400' },
    quota: { type: 'string', default: '20' },
    'video-ms': { type: 'string', default: '3000' },
    out: { type: 'string', default: 'bench/results/quota' },
  },
});
const JOBS = Number(args.jobs);
const QUOTA = Number(args.quota);
const VIDEO_MS = Number(args['video-ms']);
const LATENCY_MS = 80;
const silent = { log() {}, info() {}, warn() {}, error() {}, debug() {}, trace() {} };
const say = (line: string) => console.log(`[bench:quota] ${line}`);

type Figures = QuotaVariant;

/** Provider-side figures from the sandbox's request log: creates, their 429s, and each task's end. */
function providerFigures(sandbox: Sandbox, start: number) {
  const creates = sandbox
    .requests()
    .filter((r) => r.operation === 'video.create' && r.at >= start && r.status === 200)
    .map((r) => r.answeredAt ?? r.at)
    .sort((a, b) => a - b);
  const ends = creates.map((c) => c + VIDEO_MS);
  const span = Math.max(...ends) - creates[0]!;
  const utilization = (creates.length * VIDEO_MS) / (QUOTA * span);
  // The k-th create past the first `QUOTA` took the slot the (k - QUOTA)-th task gave back.
  const gaps = creates.slice(QUOTA).map((c, k) => c - ends[k]!);
  const sorted = gaps.sort((a, b) => a - b);
  const stats = sandbox.quotaStats().video;
  return {
    utilization: round(utilization, 3),
    releaseToCreateMs: sorted.length
      ? { p50: round(percentile(sorted, 50), 0), p95: round(percentile(sorted, 95), 0) }
      : undefined,
    refused: stats.refused,
    peakInFlight: stats.peakInFlight,
  };
}

function job(marker: string): ReviewThenGenerateInput {
  return {
    task: { model: 'video-model-1', content: [{ type: 'text', text: `quota-bench ${marker}` }], duration: 5 },
    callbacks: true,
    timing: { videoPollIntervalMs: 1_000 },
  };
}

async function withTemporal(
  client: Client,
  server: Awaited<ReturnType<typeof startDevServer>>,
  variant: string,
  admission: boolean,
): Promise<Figures> {
  const sandbox = await startSandbox({
    latencyMs: LATENCY_MS,
    videoDurationMs: VIDEO_MS,
    allowPrivateUrls: true,
    callbackTimeoutMs: 15_000,
    videoMaxTasksInFlight: QUOTA,
  });
  const secret = randomBytes(24).toString('base64url');
  const receiver = await startCallbackServer({ client, secret, host: '127.0.0.1', port: 0 });
  const clients = {
    video: new VideoClient({
      baseUrl: sandbox.videoBaseUrl,
      apiKey: sandbox.apiKey,
      timeoutMs: 30_000,
      cancelMethod: 'POST',
      cancelPath: '/v1/task/cancel/{id}',
      allowPrivateUrls: true,
    }),
    review: new ReviewClient({
      baseUrl: sandbox.reviewBaseUrl,
      accessToken: sandbox.accessToken,
      timeoutMs: 30_000,
      allowPrivateUrls: true,
    }),
  };
  const key = defaultVideoQuotaKey(sandbox.videoBaseUrl);
  const settings: AdmissionSettings = admission ? { video: { key, maxTasksInFlight: QUOTA, byModel: {} } } : {};
  const taskQueue = `quota-bench-${variant.replace(/ /g, '-')}-${randomUUID().slice(0, 8)}`;
  const worker = await Worker.create({
    connection: server.env.nativeConnection,
    namespace: server.namespace,
    taskQueue,
    workflowBundle: await bundleWorkflowCode({ workflowsPath, preloadModules: workflowPreloadModules, logger: silent }),
    activities: createActivities({ ...clients, callbacks: { publicUrl: receiver.url, secret }, admission: settings }),
  });
  const running = worker.run();
  try {
    const t0 = Date.now();
    const handles = await Promise.all(
      Array.from({ length: JOBS }, (_, i) =>
        startReviewThenGenerate(client, { businessKey: `${taskQueue}-${i}`, input: job(`${variant} ${i}`), taskQueue }),
      ),
    );
    const outcomes = await Promise.all(
      handles.map((h) =>
        h.result().then(
          () => true,
          () => false,
        ),
      ),
    );
    const wallMs = Date.now() - t0;
    say(`${variant}: ${outcomes.filter(Boolean).length}/${JOBS} succeeded in ${(wallMs / 1000).toFixed(1)} s`);
    let runActions = 0;
    /** What admission added to the runs: creates that only queued (or were refused), grants, the wait's upsert. */
    let admissionInRuns = 0;
    for (const h of handles) {
      const history = await client.workflow.getHandle(h.workflowId).fetchHistory();
      runActions += costOf(history).actions;
      const events = history.events ?? [];
      const count = (match: (e: (typeof events)[number]) => boolean) => events.filter(match).length;
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
    if (admission) {
      // Every gate run of the key (continue-as-new chains it), started by this variant.
      for await (const w of client.workflow.list({ query: `WorkflowId = '${admissionGateId(key)}'` }))
        gateActions += costOf(await client.workflow.getHandle(w.workflowId, w.runId).fetchHistory()).actions;
      await client.workflow.getHandle(admissionGateId(key)).terminate('benchmark over');
    }
    return {
      variant,
      succeeded: outcomes.filter(Boolean).length,
      failed: outcomes.filter((o) => !o).length,
      wallMs,
      ideal: Math.ceil(JOBS / QUOTA) * VIDEO_MS,
      ...providerFigures(sandbox, t0),
      actionsPerJob: {
        run: round(runActions / JOBS, 2),
        gate: round(gateActions / JOBS, 2),
        admission: round((admissionInRuns + gateActions) / JOBS, 2),
        baseline: round((runActions - admissionInRuns) / JOBS, 2),
      },
    };
  } finally {
    worker.shutdown();
    await running;
    await receiver.close();
    await Promise.allSettled([clients.video.close(), clients.review.close()]);
    await sandbox.close();
  }
}

/** No Temporal: keep `QUOTA` creates in flight, poll each task every 500 ms until it is final. */
async function plainScript(): Promise<Figures> {
  const sandbox = await startSandbox({
    latencyMs: LATENCY_MS,
    videoDurationMs: VIDEO_MS,
    videoMaxTasksInFlight: QUOTA,
  });
  const video = new VideoClient({
    baseUrl: sandbox.videoBaseUrl,
    apiKey: sandbox.apiKey,
    timeoutMs: 30_000,
    cancelMethod: 'POST',
    cancelPath: '/v1/task/cancel/{id}',
  });
  try {
    const t0 = Date.now();
    let next = 0;
    let succeeded = 0;
    const lane = async () => {
      while (next < JOBS) {
        const i = next++;
        const task = await video.createTask({
          model: 'video-model-1',
          content: [{ type: 'text', text: `quota-bench plain ${i}` }],
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
    const wallMs = Date.now() - t0;
    say(`plain script: ${succeeded}/${JOBS} in ${(wallMs / 1000).toFixed(1)} s`);
    return {
      variant: 'plain script',
      succeeded,
      failed: JOBS - succeeded,
      wallMs,
      ideal: Math.ceil(JOBS / QUOTA) * VIDEO_MS,
      ...providerFigures(sandbox, t0),
    };
  } finally {
    await video.close();
    await sandbox.close();
  }
}

Runtime.install({ logger: new DefaultLogger('ERROR') });
const server = await startDevServer({ ui: false, extraArgs: ['--metrics-port', String(await freePort())] });
const client = new Client({ connection: server.env.connection, namespace: server.namespace });
try {
  say(`${JOBS} jobs, provider quota ${QUOTA} tasks in flight, generation ${VIDEO_MS} ms, latency ${LATENCY_MS} ms`);
  const plain = await plainScript();
  const withAdmission = await withTemporal(client, server, 'admission', true);
  const without = await withTemporal(client, server, 'no admission', false);
  const results: QuotaResults = {
    date: new Date().toISOString(),
    jobs: JOBS,
    quota: QUOTA,
    videoMs: VIDEO_MS,
    latencyMs: LATENCY_MS,
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
