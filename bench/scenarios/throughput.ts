// Scenarios 1-5: one burst of N jobs at once through one worker, and everything measured on the way —
// jobs per second, per-job latency, API calls per job (sandbox log), history events per job, activity
// slots held, callback -> next call latency, CPU per job. Also the trivial workflow (the server's limit)
// and the plain-script peer, on the same sandbox.
import type { Client } from '@temporalio/client';
import type { Sandbox } from 'temporal-review-video-sandbox';
import { DEFAULT_TIMING } from '../../src/job/input.js';
import { runChild } from '../lib/child.js';
import type { Harness, ProfileEnv } from '../lib/harness.js';
import { sampleHistories } from '../lib/histories.js';
import { plainStarter, runLoad, type LoadResult } from '../lib/load.js';
import { cpuSeconds } from '../lib/proc.js';
import { apiCalls, callbackLatency, pollsByJob } from '../lib/sandbox-metrics.js';
import { actionsBetween, settledActions } from '../lib/server-actions.js';
import { mean, summarize } from '../lib/stats.js';
import type { PeerConfig, PeerReport } from '../peer/main.js';
import { packageStarter, planJobs, type BenchJob, type Mode } from '../profiles.js';
import { fig, sfig, type RunResult } from '../results.js';
import type { WorkerSample } from '../worker/protocol.js';

export interface RunOptions {
  label: string;
  concurrency: number;
  timeoutMs: number;
  /** Histories fetched to break events down by type. */
  historySample?: number;
}

/** Gives each job its own review and generation time when the profile draws them from a range. */
export function scriptDurations(sandbox: Sandbox, jobs: BenchJob[], env: Pick<ProfileEnv, 'profile'>): void {
  const { reviewMs, videoMs } = env.profile;
  if (reviewMs[0] !== reviewMs[1])
    for (const j of jobs) sandbox.setReviewTaskOutcome({ url: j.imageUrl }, 'completed', j.reviewMs);
  if (videoMs[0] !== videoMs[1])
    for (const j of jobs) sandbox.setVideoOutcome({ promptIncludes: j.marker }, 'succeeded', j.videoMs);
}

/** Throughput from the server's clock: completed jobs over first start -> last close. */
function rate(load: LoadResult) {
  const done = load.records.filter((r) => r.status === 'COMPLETED' && r.closeMs !== undefined);
  const first = Math.min(...load.records.map((r) => r.startMs));
  const last = Math.max(...done.map((r) => r.closeMs!));
  const wallMs = done.length ? last - first : NaN;
  return {
    done,
    wallMs,
    jobsPerSecond: done.length / (wallMs / 1000),
    latencies: done.map((r) => r.closeMs! - r.startMs),
    failed: load.records.filter((r) => r.status !== 'COMPLETED').length,
  };
}

/** Mean number of jobs in flight over [from, to], from their start and close times. */
function meanInFlight(load: LoadResult, from: number, to: number): number {
  if (to <= from) return NaN;
  let busy = 0;
  for (const r of load.records) busy += Math.max(0, Math.min(r.closeMs ?? to, to) - Math.max(r.startMs, from));
  return busy / (to - from);
}

async function terminateRunning(client: Client, label: string): Promise<void> {
  for await (const w of client.workflow.list({ query: `BatchId = "${label}" AND ExecutionStatus = "Running"` })) {
    await client.workflow
      .getHandle(w.workflowId)
      .terminate('benchmark run timed out')
      .catch(() => undefined);
  }
}

function slotFigures(samples: WorkerSample[], load: LoadResult, from: number, to: number) {
  const inWindow = samples.filter((s) => s.t >= from && s.t <= to);
  const running = inWindow.map((s) => s.running);
  const jobsInFlight = meanInFlight(load, from, to);
  return {
    activitySlots: {
      meanRunning: fig(mean(running), 'activities'),
      peakRunning: fig(running.length ? Math.max(...running) : NaN, 'activities'),
      meanJobsInFlight: fig(jobsInFlight, 'jobs'),
      perJobInFlight: fig(mean(running) / jobsInFlight, 'activities/job', 4),
    },
    peakRss: inWindow.length ? Math.max(...inWindow.map((s) => s.rssBytes)) : NaN,
    peakCached: inWindow.length ? Math.max(...inWindow.map((s) => s.cachedWorkflows)) : NaN,
  };
}

async function measureWorkflowRun(
  h: Harness,
  env: ProfileEnv,
  o: RunOptions,
  kind: 'ours' | 'trivial',
  start: (i: number) => Promise<unknown>,
  mode: Mode | undefined,
): Promise<RunResult> {
  const { sandbox, worker } = env;
  const before = await worker.stats(Date.now());
  const actions0 = await settledActions(h.metricsUrl, h.server.namespace);
  const server0 = h.serverPid ? cpuSeconds(h.serverPid) : undefined;
  const harness0 = process.cpuUsage();
  const load = await runLoad({ client: h.client, label: o.label, n: o.concurrency, start, timeoutMs: o.timeoutMs });
  const harnessCpu = process.cpuUsage(harness0);
  const server1 = h.serverPid ? cpuSeconds(h.serverPid) : undefined;
  const actions1 = await settledActions(h.metricsUrl, h.server.namespace);
  const after = await worker.stats(load.startedAt);
  if (load.timedOut) await terminateRunning(h.client, o.label);

  const r = rate(load);
  const first = Math.min(...load.records.map((x) => x.startMs));
  const last = Math.max(...load.records.map((x) => x.closeMs ?? load.finishedAt));
  const slots = slotFigures(after.samples, load, first, last);
  const workerCpuMs =
    (after.cpuMicros.user + after.cpuMicros.system - before.cpuMicros.user - before.cpuMicros.system) / 1000;
  const n = Math.max(1, r.done.length);
  // Over every job of the run, finished or not: the counter does not tell them apart.
  const serverActions = actionsBetween(actions0, actions1, load.records.length);
  const result: RunResult = {
    label: o.label,
    kind,
    ...(mode ? { mode } : {}),
    ...(kind === 'ours' ? { profile: env.profile.name } : {}),
    concurrency: o.concurrency,
    workerConfig: env.workerConfig,
    jobs: o.concurrency,
    completed: r.done.length,
    failed: r.failed,
    timedOut: load.timedOut,
    wall: fig(r.wallMs / 1000, 's'),
    throughput: fig(r.jobsPerSecond, 'jobs/s'),
    startPhase: fig(load.startPhaseMs / 1000, 's'),
    latency: sfig(summarize(r.latencies), 'ms'),
    historyEvents: sfig(summarize(r.done.map((x) => x.historyLength)), 'events/job'),
    activitySlots: slots.activitySlots,
    cpu: {
      worker: fig(workerCpuMs / n, 'ms CPU/job'),
      ...(server0 !== undefined && server1 !== undefined
        ? { server: fig(((server1 - server0) * 1000) / n, 'ms CPU/job') }
        : {}),
      harness: fig((harnessCpu.user + harnessCpu.system) / 1000 / n, 'ms CPU/job'),
    },
    memory: {
      workerPeakRss: fig(slots.peakRss / 2 ** 20, 'MiB'),
      workerPeakCachedWorkflows: fig(slots.peakCached, 'workflows'),
    },
    ...(serverActions ? { serverActions } : {}),
  };
  if (kind === 'ours') {
    const requests = sandbox.requests();
    result.apiCalls = { ...apiCalls(requests, r.done.length), unit: 'calls' };
    if (mode === 'callbacks')
      result.callbackLatency = {
        ...callbackLatency(
          requests,
          sandbox.callbacks(),
          env.profile.timing.callbackFallbackPollMs ?? DEFAULT_TIMING.callbackFallbackPollMs,
        ),
        unit: 'ms',
      };
  }
  if (o.historySample && r.done.length)
    result.historySample = await sampleHistories(
      h.client,
      r.done.map((x) => x.workflowId),
      o.historySample,
      mode === 'polling' ? pollsByJob(sandbox.requests(), o.label) : undefined,
    );
  return result;
}

export async function runOurs(h: Harness, env: ProfileEnv, mode: Mode, o: RunOptions): Promise<RunResult> {
  env.sandbox.reset();
  const jobs = planJobs(o.label, o.concurrency, env.profile);
  scriptDurations(env.sandbox, jobs, env);
  return measureWorkflowRun(
    h,
    env,
    o,
    'ours',
    packageStarter(h.client, env.taskQueue, o.label, jobs, mode, env.profile.timing),
    mode,
  );
}

export async function runTrivial(h: Harness, env: ProfileEnv, o: RunOptions): Promise<RunResult> {
  env.sandbox.reset();
  return measureWorkflowRun(
    h,
    env,
    o,
    'trivial',
    plainStarter(h.client, env.taskQueue, 'BenchTrivial', o.label, (i) => [i]),
    undefined,
  );
}

export async function runPeer(
  env: Pick<ProfileEnv, 'sandbox' | 'profile'>,
  mode: Mode,
  o: RunOptions,
): Promise<RunResult> {
  const { sandbox, profile } = env;
  sandbox.reset();
  const jobs = planJobs(o.label, o.concurrency, profile);
  scriptDurations(sandbox, jobs, env);
  const config: PeerConfig = {
    label: o.label,
    n: o.concurrency,
    profile: profile.name,
    mode,
    timing: {
      reviewIntervalMs: profile.timing.reviewMinQueryIntervalMs ?? 2_000,
      videoIntervalMs: profile.timing.videoPollIntervalMs ?? 10_000,
      fallbackMs: profile.timing.callbackFallbackPollMs ?? DEFAULT_TIMING.callbackFallbackPollMs,
    },
    video: { baseUrl: sandbox.videoBaseUrl, apiKey: sandbox.apiKey },
    review: { baseUrl: sandbox.reviewBaseUrl, accessToken: sandbox.accessToken },
    httpTimeoutMs: 30_000,
  };
  const report = await runChild<PeerReport>('peer/main.ts', 'BENCH_PEER_CONFIG', config, o.timeoutMs + 60_000);
  const done = report.results.filter((x) => x.ok);
  const first = Math.min(...report.results.map((x) => x.startMs));
  const last = Math.max(...done.map((x) => x.endMs));
  const wallMs = last - first;
  const requests = sandbox.requests();
  const errors = [...new Set(report.results.filter((x) => !x.ok).map((x) => x.error ?? 'unknown'))].slice(0, 5);
  return {
    label: o.label,
    kind: 'peer',
    mode,
    profile: profile.name,
    concurrency: o.concurrency,
    jobs: o.concurrency,
    completed: done.length,
    failed: report.results.length - done.length,
    timedOut: false,
    wall: fig(wallMs / 1000, 's'),
    throughput: fig(done.length / (wallMs / 1000), 'jobs/s'),
    latency: sfig(summarize(done.map((x) => x.endMs - x.startMs)), 'ms'),
    apiCalls: { ...apiCalls(requests, done.length), unit: 'calls' },
    ...(mode === 'callbacks'
      ? {
          callbackLatency: {
            ...callbackLatency(requests, sandbox.callbacks(), config.timing.fallbackMs),
            unit: 'ms' as const,
          },
        }
      : {}),
    cpu: {
      peer: fig((report.cpuMicros.user + report.cpuMicros.system) / 1000 / Math.max(1, done.length), 'ms CPU/job'),
    },
    memory: { peerPeakRss: fig(report.peakRssBytes / 2 ** 20, 'MiB') },
    ...(errors.length ? { errors } : {}),
  };
}

/**
 * A few jobs, not recorded, right after a worker process starts: JIT, the V8 context and the first
 * bundle evaluation are paid before anything is measured. Durations are scripted (100 ms review,
 * 200 ms generation) whatever the sandbox's defaults, and the sandbox is reset afterwards.
 */
export async function warmUp(h: Harness, env: ProfileEnv, n: number, label: string): Promise<void> {
  if (n <= 0) return;
  env.sandbox.reset();
  const trivial = env.workerConfig.startsWith('trivial');
  const jobs = planJobs(label, n, env.profile);
  for (const j of jobs) {
    env.sandbox.setReviewTaskOutcome({ url: j.imageUrl }, 'completed', 100);
    env.sandbox.setVideoOutcome({ promptIncludes: j.marker }, 'succeeded', 200);
  }
  const start = trivial
    ? plainStarter(h.client, env.taskQueue, 'BenchTrivial', label, (i) => [i])
    : packageStarter(h.client, env.taskQueue, label, jobs, 'polling', {
        ...env.profile.timing,
        reviewMinQueryIntervalMs: 100,
        videoPollIntervalMs: 100,
      });
  const load = await runLoad({ client: h.client, label, n, start, timeoutMs: 120_000 });
  env.sandbox.reset();
  const failed = load.records.filter((r) => r.status !== 'COMPLETED').length;
  if (load.timedOut || failed > 0)
    throw new Error(
      `warm-up of worker '${env.workerConfig}': ${failed} of ${n} jobs did not complete (is the workflow bundle broken?)`,
    );
}
