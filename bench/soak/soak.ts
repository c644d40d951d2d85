// runSoak(): the whole soak run. The sandbox and the webhook receiver live in this process (they outlive
// every kill); the Temporal dev server (database file), the worker processes (several on one task queue)
// and the callback receiver are child processes that the chaos kills and restarts. At the end every job,
// every video and review task, the full request log and every job's notification are checked.
import { randomBytes } from 'node:crypto';
import { appendFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode } from '@temporalio/worker';
import { freePort } from '../../src/dev/temporal-dev-server.js';
import { newNotifySecret } from '../../src/notify/signing.js';
import {
  startWebhookReceiver,
  type RequestLogEntry,
  type Sandbox,
  type WebhookReceiver,
} from 'temporal-review-video-sandbox';
import type { Progress } from '../../src/job/definitions.js';
import { workflowPreloadModules, workflowsPath } from '../../src/workflows-path.js';
import { sandboxServiceEnv, startServices } from '../../test/support/services-stack.js';
import { WORKER_READY, workerArgs } from '../../test/support/worker-command.js';
import { Chaos, type ServerOutage } from './chaos.js';
import { faultCounts, verdictOf, verdictOk, type FaultCounts, type SandboxSnapshot, type Verdict } from './checks.js';
import { driveJobs, type JobRecord } from './driver.js';
import { FaultInjector } from './fault-injector.js';
import { planJobs } from './jobs.js';
import { notificationsOk, notificationVerdict, undelivered, type NotificationVerdict } from './notifications.js';
import type { SoakOptions } from './options.js';
import { Rng } from './rng.js';
import { fetchHistories, scanForSecrets, signedCallbackUrls, type SecretScan, type Secrets } from './secrets.js';
import { Supervised } from './supervisor.js';
import { temporalServer } from './temporal-server.js';
import { WebhookFaults } from './webhook-faults.js';

export interface SoakReport {
  ok: boolean;
  startedAt: string;
  durationMs: number;
  /** From the first start to the last outcome. */
  jobPhaseMs: number;
  outDir: string;
  options: Omit<SoakOptions, 'outDir' | 'reliabilityPath' | 'dumpHistories' | 'seeds'>;
  environment: { node: string; cpus: number; platform: string; temporalCli: string };
  verdict: Verdict;
  faults: FaultCounts & { armed: { requests: number; callbacks: number } };
  chaos: {
    /** Worker processes on the one task queue. */
    workers: number;
    workerKills: number;
    workerStarts: number;
    workerUnexpectedExits: number;
    /** Per worker process: SIGKILLs, starts, exits of its own. */
    perWorker: Array<{ name: string; kills: number; starts: number; unexpectedExits: number }>;
    receiverRestarts: number;
    receiverStarts: number;
    receiverUnexpectedExits: number;
    serverOutage: ServerOutage | undefined;
  };
  secrets: SecretScan;
  /** Every job's notification of its outcome, as the soak's webhook receiver got them (notifications.ts). */
  notifications: NotificationVerdict & {
    /** From the last job's outcome until the expected notifications were all in, or the wait's bound. */
    settleMs: number;
    /** The receiver's faults armed, by label (`notifications.faults` counts those applied). */
    armed: Record<string, number>;
  };
  latencyMs: { p50: number; p95: number; max: number };
  driverErrors: number;
  /** With `--video-quota N`: the workers' VIDEO_MAX_TASKS_IN_FLIGHT and the sandbox's real capacity, both N. */
  videoQuota?: { limit: number; peakInFlight: number; admitted: number; refused: number };
  /** With `--review-quota N`: the same for review tasks (REVIEW_MAX_TASKS_IN_FLIGHT). */
  reviewQuota?: { limit: number; peakInFlight: number; admitted: number; refused: number };
  /** With `--video-budget-seconds N`: the budget, and the seconds the provider will bill for the tasks made. */
  videoBudget?: { tenant: string; seconds: number; billedSeconds: number; tasks: number; withoutDuration: number };
}

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));
const quietLogger = { log() {}, info() {}, warn() {}, error() {}, debug() {}, trace() {} };

/** Secrets come from the environment when given (the soak test passes its own, to scan for them). */
function soakSecrets(): Secrets {
  return {
    apiKey: process.env.SOAK_API_KEY || `sk-soak-${randomBytes(16).toString('hex')}`,
    accessToken: process.env.SOAK_ACCESS_TOKEN || `at-soak-${randomBytes(16).toString('hex')}`,
    callbackSecret: process.env.SOAK_CALLBACK_SECRET || `cb-soak-${randomBytes(16).toString('hex')}`,
    notifySecret: process.env.SOAK_NOTIFY_SECRET || newNotifySecret(),
  };
}

export async function runSoak(o: SoakOptions, say: (line: string) => void): Promise<SoakReport> {
  const t0 = Date.now();
  const outDir = o.outDir ?? mkdtempSync(join(tmpdir(), 'soak-'));
  const logDir = join(outDir, 'logs');
  mkdirSync(logDir, { recursive: true });
  const rng = new Rng(o.seed);
  const runId = `r${o.seed.toString(36)}x${(Date.now() % 46656).toString(36)}`;
  const secrets = soakSecrets();
  // Every job notifies its outcome here; the receiver keeps every request for the verdict.
  const webhooks = await startWebhookReceiver({ host: '127.0.0.1' });
  const jobs = planJobs(o.jobs, runId, rng, o.timing, o.optInShare, webhooks.url);
  say(
    `soak ${runId}: ${o.jobs} jobs, seed ${o.seed}, ${o.workers} worker process(es), window ${o.window}, out ${outDir}`,
  );

  // Bundled once: a worker restarted after SIGKILL loads it in a second instead of running webpack.
  const bundlePath = join(outDir, 'workflow-bundle.js');
  writeFileSync(
    bundlePath,
    (await bundleWorkflowCode({ workflowsPath, preloadModules: workflowPreloadModules, logger: quietLogger })).code,
  );

  // The services as every stack has them (test/support/services-stack.ts), with the soak's credentials;
  // the callback receiver is a child process of its own, which the chaos restarts.
  const services = await startServices({
    sandbox: { apiKey: secrets.apiKey, accessToken: secrets.accessToken, ...o.sandbox },
  });
  const { sandbox } = services;
  const server = temporalServer({ outDir, port: await freePort() });
  const receiverPort = await freePort();
  const childEnv: NodeJS.ProcessEnv = {
    ...process.env,
    TEMPORAL_ADDRESS: server.address,
    TEMPORAL_NAMESPACE: 'default',
    TEMPORAL_TASK_QUEUE: `soak-${runId}`,
    // Loopback addresses (ALLOW_PRIVATE_URLS) for the callback receiver and the webhook receiver alike.
    ...sandboxServiceEnv(sandbox),
    HTTP_TIMEOUT_MS: String(o.httpTimeoutMs),
    CALLBACK_PUBLIC_URL: `http://127.0.0.1:${receiverPort}`,
    CALLBACK_SECRET: secrets.callbackSecret,
    CALLBACK_HOST: '127.0.0.1',
    CALLBACK_PORT: String(receiverPort),
    NOTIFY_SECRET: secrets.notifySecret,
    // The startup lines the supervisor waits for ("worker: task queue", "callback receiver listening");
    // warnings and errors (activity failures among them) land in the logs the soak scans for secrets.
    LOG_LEVEL: 'info',
    // The workers are our worker (src/worker.ts) loading the bundle made once above: a restart after
    // SIGKILL takes seconds, not a webpack build.
    WORKFLOW_BUNDLE_PATH: bundlePath,
    // A fresh worker replays every open workflow (its cache died with the last one): a few workflow tasks
    // at a time, so none waits in the worker past its 10 s time-out on a busy 2-core machine; the rest
    // wait on the server, where waiting costs nothing.
    WORKER_MAX_CONCURRENT_WORKFLOW_TASKS: '4',
    // The workers enforce the providers' quotas the sandbox emulates (`--video-quota`, `--review-quota`),
    // across all of them.
    ...(o.sandbox.videoMaxTasksInFlight !== undefined
      ? { VIDEO_MAX_TASKS_IN_FLIGHT: String(o.sandbox.videoMaxTasksInFlight) }
      : {}),
    ...(o.sandbox.reviewMaxTasksInFlight !== undefined
      ? { REVIEW_MAX_TASKS_IN_FLIGHT: String(o.sandbox.reviewMaxTasksInFlight) }
      : {}),
    ...(o.videoBudgetSeconds !== undefined
      ? { VIDEO_DAILY_SECONDS_BY_TENANT: `${BUDGET_TENANT}:${o.videoBudgetSeconds}` }
      : {}),
  };
  for (const k of [
    'SOAK_API_KEY',
    'SOAK_ACCESS_TOKEN',
    'SOAK_CALLBACK_SECRET',
    'SOAK_NOTIFY_SECRET',
    'TEMPORAL_PROFILE',
    'TEMPORAL_API_KEY',
  ])
    delete childEnv[k];
  const node = (name: string, args: string[], readyPattern: RegExp) =>
    new Supervised({
      name,
      command: process.execPath,
      args,
      env: childEnv,
      cwd: here('../..'),
      logFile: join(logDir, `${name}.log`),
      readyPattern,
      restartDelayMs: 500,
    });
  // Several workers on one task queue, as the README recommends: each killed on its own schedule.
  const workers = Array.from({ length: o.workers }, (_, i) =>
    node(o.workers === 1 ? 'worker' : `worker-${i + 1}`, workerArgs(), new RegExp(WORKER_READY)),
  );
  const receiver = node(
    'receiver',
    ['--import', 'tsx', here('../../src/callbacks/main.ts')],
    /callback receiver listening/,
  );
  const children = [...workers, receiver, server.process];
  const killAll = () => children.forEach((c) => c.killNow());
  process.once('exit', killAll);

  let connection: Connection | undefined;
  try {
    server.process.start();
    await server.process.waitReady(120_000);
    connection = await Connection.connect({ address: server.address });
    await server.waitServing(connection, 120_000);
    const client = new Client({ connection, namespace: 'default' });
    workers.forEach((w) => w.start());
    receiver.start();
    await Promise.all([...workers.map((w) => w.waitReady(180_000)), receiver.waitReady(120_000)]);
    say(
      `stack up in ${((Date.now() - t0) / 1000).toFixed(1)} s: Temporal ${server.cliVersion} on ${server.address}, sandbox ${sandbox.videoBaseUrl} ${sandbox.reviewBaseUrl}`,
    );

    const faults = new FaultInjector(
      sandbox,
      rng,
      { requests: o.requestsBetweenFaults, callbacks: o.callbacksBetweenFaults },
      o.hangMs,
    );
    // Its own stream of the seed: the job mix, faults and kills a seed gave before notifications stay as they were.
    const webhookFaults = new WebhookFaults(webhooks, rng.derive('webhooks'), o.notificationsBetweenFaults);
    const chaos = new Chaos(rng, o, workers, receiver);
    const errors: string[] = [];
    const stopAt = Math.max(1, Math.ceil(o.jobs * o.serverStopAtShare));
    let outage: Promise<ServerOutage> | undefined;
    let started = 0;
    let finished = 0;
    const phase0 = Date.now();
    const ticker = setInterval(() => {
      say(
        `  t+${Math.round((Date.now() - phase0) / 1000)}s started ${started}/${o.jobs}, done ${finished}, requests ${faults.requestsSeen}, faults armed ${faults.armed.requests}+${faults.armed.callbacks}, ` +
          `notified ${webhooks.unique().length}, worker kills ${chaos.counts.workerKills}, receiver restarts ${chaos.counts.receiverRestarts}${chaos.outage ? `, Temporal restarted (down ${(chaos.outage.downMs / 1000).toFixed(1)} s)` : outage ? ', Temporal outage under way' : ''}`,
      );
    }, 10_000);
    faults.start();
    webhookFaults.start();
    chaos.start();
    const records = await driveJobs(client, jobs, {
      taskQueue: `soak-${runId}`,
      window: o.window,
      startRate: o.startRate,
      jobDeadlineMs: o.jobDeadlineMs,
      errors,
      onStarted: (n) => {
        started = n;
        if (n === stopAt) {
          outage = chaos.serverOutage(server, connection!);
          outage.catch((err: unknown) =>
            errors.push(`server outage: ${err instanceof Error ? err.message : String(err)}`),
          );
        }
      },
      onFinished: () => void finished++,
    });
    const jobPhaseMs = Date.now() - phase0;
    clearInterval(ticker);
    await outage?.catch(() => undefined);
    chaos.stop();
    faults.stop();
    webhookFaults.stop();
    if (!server.process.ready) server.process.resume();
    await server.waitServing(connection, 120_000);
    say(`jobs done in ${(jobPhaseMs / 1000).toFixed(1)} s; waiting for their notifications`);
    // Workers up (the chaos has stopped): they deliver the notifications still under way.
    await Promise.all(workers.map((w) => w.waitReady(60_000).catch(() => undefined)));
    const settleMs = await settleNotifications(webhooks, records, o.notifySettleMs, say);
    say(`notifications settled in ${(settleMs / 1000).toFixed(1)} s; checking`);

    if (records.some((r) => r.outcome === 'not finished')) await describeLost(client, records);
    const snapshot = snapshotOf(sandbox);
    // The evidence behind the figures, for whoever wants to look again (credentials blanked out).
    writeFileSync(
      join(outDir, 'sandbox.json'),
      JSON.stringify({ ...snapshot, requests: snapshot.requests.map(withoutCredentials) }),
    );
    const histories = await fetchHistories(
      client,
      jobs.map((j) => j.workflowId),
    );
    if (o.dumpHistories) dumpHistories(join(outDir, 'histories.jsonl'), histories);
    const verdict = verdictOf(records, snapshot, histories, {
      minQueryIntervalMs: o.timing.reviewMinQueryIntervalMs,
      clientTimeoutMs: o.httpTimeoutMs,
    });
    const received = webhooks.received();
    writeFileSync(join(outDir, 'notifications.json'), JSON.stringify(received));
    const notifications = {
      ...notificationVerdict(records, received, secrets.notifySecret),
      settleMs,
      armed: { ...webhookFaults.armedByLabel },
    };
    // The delivery workflows carry the job's outcome to the receiver: their histories are scanned too.
    const jobIds = new Set(jobs.map((j) => j.workflowId));
    const deliveryHistories = await fetchHistories(
      client,
      [...new Set(received.map((e) => e.id))].filter((id) => jobIds.has(id.split('/notify/')[0]!)),
    );

    await Promise.all([...workers.map((w) => w.stop()), receiver.stop()]);
    errors.push(...records.flatMap((r) => (r.error ? [r.error] : [])));
    // Every error the runner saw, as a log of its own: scanned with the others, here and by the soak test.
    writeFileSync(join(logDir, 'runner-errors.log'), errors.map((e) => `${e}\n`).join(''));
    const secretScan = scanForSecrets(secrets, {
      histories: new Map([...histories, ...deliveryHistories]),
      logDir,
      errors,
      signedUrls: signedCallbackUrls(snapshot.requests),
      notifications: received,
    });
    const { outDir: _o, reliabilityPath: _r, dumpHistories: _d, seeds: _s, ...options } = o;
    const videoBudget =
      o.videoBudgetSeconds !== undefined
        ? { tenant: BUDGET_TENANT, seconds: o.videoBudgetSeconds, ...billedSeconds(sandbox) }
        : undefined;
    const report: SoakReport = {
      ok:
        verdictOk(verdict) &&
        notificationsOk(notifications) &&
        secretScan.hits.length === 0 &&
        (videoBudget === undefined ||
          (videoBudget.billedSeconds <= videoBudget.seconds && videoBudget.withoutDuration === 0)),
      startedAt: new Date(t0).toISOString(),
      durationMs: 0,
      jobPhaseMs,
      outDir,
      options,
      environment: {
        node: process.version,
        cpus: availableParallelism(),
        platform: `${process.platform}-${process.arch}`,
        temporalCli: server.cliVersion,
      },
      verdict,
      faults: { ...faultCounts(snapshot), armed: { ...faults.armed } },
      chaos: {
        workers: workers.length,
        workerKills: chaos.counts.workerKills,
        workerStarts: workers.reduce((n, w) => n + w.counts.starts, 0),
        workerUnexpectedExits: workers.reduce((n, w) => n + w.counts.unexpectedExits, 0),
        perWorker: workers.map((w, i) => ({
          name: w.name,
          kills: chaos.counts.workerKillsEach[i]!,
          starts: w.counts.starts,
          unexpectedExits: w.counts.unexpectedExits,
        })),
        receiverRestarts: chaos.counts.receiverRestarts,
        receiverStarts: receiver.counts.starts,
        receiverUnexpectedExits: receiver.counts.unexpectedExits,
        serverOutage: chaos.outage,
      },
      secrets: secretScan,
      notifications,
      latencyMs: latency(records),
      driverErrors: errors.length - records.filter((r) => r.error).length,
      ...(o.sandbox.videoMaxTasksInFlight !== undefined
        ? { videoQuota: { limit: o.sandbox.videoMaxTasksInFlight, ...pick(sandbox.quotaStats().video) } }
        : {}),
      ...(o.sandbox.reviewMaxTasksInFlight !== undefined
        ? { reviewQuota: { limit: o.sandbox.reviewMaxTasksInFlight, ...pick(sandbox.quotaStats().review) } }
        : {}),
      ...(videoBudget ? { videoBudget } : {}),
    };
    report.durationMs = Date.now() - t0;
    return report;
  } finally {
    await Promise.allSettled([...workers.map((w) => w.stop()), receiver.stop()]);
    await connection?.close().catch(() => undefined);
    await server.process.stop();
    await services.close();
    await webhooks.close();
    process.off('exit', killAll);
  }
}

/** The tenant of every soak job: they name no fairnessKey and no batch. */
const BUDGET_TENANT = 'default';
/**
 * The seconds of video the tasks the sandbox made will bill: each create's duration. The spec gives no
 * default, so a task made without one under a seconds budget is a budget of unknown cost: counted apart.
 */
function billedSeconds(sandbox: Sandbox): { billedSeconds: number; tasks: number; withoutDuration: number } {
  let billed = 0;
  let withoutDuration = 0;
  for (const t of sandbox.videoTasks()) {
    const d = (t.body as { duration?: unknown } | undefined)?.duration;
    if (typeof d === 'number') billed += d;
    else withoutDuration++;
  }
  return { billedSeconds: billed, tasks: sandbox.videoTasks().length, withoutDuration };
}

function withoutCredentials(e: RequestLogEntry): RequestLogEntry {
  const headers = { ...e.headers };
  for (const h of ['authorization', 'x-access-token']) if (headers[h] !== undefined) headers[h] = '[redacted]';
  return { ...e, headers };
}

const pick = ({ peakInFlight, admitted, refused }: ReturnType<Sandbox['quotaStats']>['review']) => ({
  peakInFlight,
  admitted,
  refused,
});

function snapshotOf(sandbox: Sandbox): SandboxSnapshot {
  return {
    requests: sandbox.requests(),
    callbacks: sandbox.callbacks(),
    videoTasks: sandbox.videoTasks(),
    reviewTasks: sandbox.reviewTasks(),
  };
}

/** A job still running at its deadline: what its `progress` query says, for the report. */
async function describeLost(client: Client, records: JobRecord[]): Promise<void> {
  for (const r of records.filter((x) => x.outcome === 'not finished')) {
    try {
      const p = await client.connection.withDeadline(Date.now() + 5_000, () =>
        client.workflow.getHandle(r.job.workflowId).query<Progress>('progress'),
      );
      r.error = `stage ${p.stage}, task ${p.taskId ?? '-'}, state ${p.state ?? '-'}, last error ${p.lastError ?? '-'}`;
    } catch (err) {
      r.error = `no progress: ${err instanceof Error ? err.message : String(err)}`;
    }
  }
}

/**
 * Waits, up to `ms`, until every job that ended has a delivery of its outcome taken and no answer is held
 * by a delay fault: a notification's last retry may come after its job's outcome (backoff, a killed
 * worker's attempt timing out). Returns how long it waited.
 */
async function settleNotifications(
  webhooks: WebhookReceiver,
  records: JobRecord[],
  ms: number,
  say: (line: string) => void,
): Promise<number> {
  const t0 = Date.now();
  let lastSaid = t0;
  for (;;) {
    const missing = undelivered(records, webhooks.received());
    const elapsed = Date.now() - t0;
    if ((missing === 0 && webhooks.held() === 0) || elapsed >= ms) return elapsed;
    if (Date.now() - lastSaid >= 10_000) {
      lastSaid = Date.now();
      say(`  +${Math.round(elapsed / 1000)}s notifications: ${missing} not delivered yet, ${webhooks.held()} held`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}

function dumpHistories(file: string, histories: Map<string, string>): void {
  writeFileSync(file, '');
  for (const [workflowId, text] of histories) appendFileSync(file, `${JSON.stringify({ workflowId, text })}\n`);
}

function latency(records: JobRecord[]): SoakReport['latencyMs'] {
  const d = records
    .filter((r) => r.endedAt && r.startedAt)
    .map((r) => r.endedAt! - r.startedAt!)
    .sort((a, b) => a - b);
  const at = (q: number) => d[Math.min(d.length - 1, Math.floor(q * d.length))] ?? 0;
  return { p50: at(0.5), p95: at(0.95), max: d[d.length - 1] ?? 0 };
}
