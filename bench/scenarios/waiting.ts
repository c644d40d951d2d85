// Scenario 6 and the "slots held while waiting" half of scenario 4: many jobs waiting at once — for a
// review callback, or polling a long generation — and what the one worker holds meanwhile: RSS, cached
// workflows, activities executing, API calls. Jobs are added in chunks with an RSS checkpoint after
// each, up to the target or until the time budget runs out (then the RSS slope is reported too). Each
// checkpoint also reads the V8 heaps, so that the memory of one cached workflow can be taken apart.
import { perCachedWorkflow, type MemoryPoint } from '../lib/cache-memory.js';
import type { Harness, ProfileEnv } from '../lib/harness.js';
import { startJobs } from '../lib/load.js';
import { mean } from '../lib/stats.js';
import { packageStarter, planJobs, type Mode } from '../profiles.js';
import { fig, type WaitingResult } from '../results.js';
import type { MemoryReading } from '../worker/protocol.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const mib = (bytes: number) => Math.round((bytes / 2 ** 20) * 10) / 10;

function heapOf(m: MemoryReading): NonNullable<MemoryPoint['heap']> {
  return {
    mainUsedMiB: mib(m.mainHeapUsed),
    mainTotalMiB: mib(m.mainHeapTotal),
    threadUsedMiB: mib(m.threadHeapUsed),
    threadTotalMiB: mib(m.threadHeapTotal),
    externalMiB: mib(m.external),
  };
}

export interface WaitingOptions {
  label: string;
  target: number;
  chunk: number;
  /** Chunk size once the sticky cache is full (default `chunk`): fewer, larger steps to a big target. */
  chunkPastCache?: number;
  mode: Mode;
  windowMs: number;
  /** Polling mode: the video poll interval while waiting (production default 10 s). */
  videoPollIntervalMs: number;
  /** Stop adding chunks when the next one would not fit (ms epoch). */
  deadline: number;
  log: (line: string) => void;
}

/**
 * The env's sandbox must make reviews (callbacks) and generations (polling) outlast the scenario;
 * polling jobs get a 100 ms review so that they wait in generation.
 */
export async function runWaiting(h: Harness, env: ProfileEnv, o: WaitingOptions): Promise<WaitingResult> {
  const { sandbox, worker } = env;
  const jobs = planJobs(o.label, o.target, env.profile);
  if (o.mode === 'polling') for (const j of jobs) sandbox.setReviewTaskOutcome({ url: j.imageUrl }, 'completed', 100);
  const rssNow = async () => mean((await worker.stats(Date.now() - 2_000)).samples.map((s) => s.rssBytes));
  await sleep(2_000);
  const idleRss = await rssNow();
  const idleReading = await worker.memory();
  const idleHeap = heapOf(idleReading);
  const timing = {
    ...env.profile.timing,
    // The safety-net poll of callback mode (default 60 s) must not fire during the measurement.
    callbackFallbackPollMs: 1_800_000,
    videoPollIntervalMs: o.videoPollIntervalMs,
    reviewTimeoutMs: 7_200_000,
  };
  const start = packageStarter(h.client, env.taskQueue, o.label, jobs, o.mode, timing);
  // Counted from this scenario's start: an earlier waiting scenario may share the sandbox.
  const count = () => (o.mode === 'callbacks' ? sandbox.reviewTasks().length : sandbox.videoTasks().length);
  const base = count();
  const waitingCount = () => count() - base;
  const checkpoints: WaitingResult['checkpoints'] = [];
  const t0 = Date.now();
  let started = 0;
  let lastChunkMs = 0;
  let lastChunk = 1;
  while (started < o.target) {
    const cacheFull = started >= worker.maxCachedWorkflows;
    const n = Math.min(cacheFull ? (o.chunkPastCache ?? o.chunk) : o.chunk, o.target - started);
    // The next chunk takes what the last did, per job.
    if (started > 0 && Date.now() + ((lastChunkMs * n) / lastChunk) * 1.2 > o.deadline) {
      o.log(`  stopping at ${started} waiting jobs: the next ${n} would not fit in the time budget`);
      break;
    }
    const c0 = Date.now();
    const offset = started;
    await startJobs({ n, start: (i) => start(offset + i) });
    started += n;
    while (waitingCount() < started && Date.now() < o.deadline + 120_000) await sleep(250);
    // Let the last workflow tasks drain: the worker is idle when no activation is in flight for a while.
    for (let quiet = 0; quiet < 5;) {
      const s = (await worker.stats(Date.now() - 300)).samples;
      quiet = s.length && s.every((x) => x.inFlightWorkflowActivations === 0) ? quiet + 1 : 0;
      await sleep(300);
    }
    lastChunkMs = Date.now() - c0;
    lastChunk = n;
    const reading = await worker.memory();
    checkpoints.push({
      waitingJobs: waitingCount(),
      rssMiB: Math.round((await rssNow()) / 2 ** 20),
      cachedWorkflows: reading.cachedWorkflows,
      atSeconds: Math.round((Date.now() - t0) / 1000),
      heap: heapOf(reading),
    });
    o.log(
      `  ${waitingCount()} jobs waiting (${o.mode}) after ${((Date.now() - t0) / 1000).toFixed(0)} s; worker RSS ${checkpoints.at(-1)!.rssMiB} MiB`,
    );
  }
  const rampMs = Date.now() - t0;
  const calls0 = sandbox.requests().length;
  const windowStart = Date.now();
  await sleep(o.windowMs);
  const stats = await worker.stats(windowStart);
  const calls = sandbox.requests().length - calls0;
  const samples = stats.samples;
  const running = samples.map((s) => s.running);
  const waitingRss = mean(samples.map((s) => s.rssBytes));
  const waiting = waitingCount();
  // Least-squares slope of RSS against waiting jobs over the checkpoints (and the idle point).
  const pts = [{ x: 0, y: idleRss / 2 ** 20 }, ...checkpoints.map((c) => ({ x: c.waitingJobs, y: c.rssMiB }))];
  const mx = mean(pts.map((p) => p.x));
  const my = mean(pts.map((p) => p.y));
  const slope =
    pts.reduce((a, p) => a + (p.x - mx) * (p.y - my), 0) /
    Math.max(
      1e-9,
      pts.reduce((a, p) => a + (p.x - mx) ** 2, 0),
    );
  return {
    target: o.target,
    jobs: waiting,
    mode: o.mode,
    ...(o.mode === 'polling' ? { pollIntervalMs: fig(o.videoPollIntervalMs, 'ms') } : {}),
    allWaiting: waiting >= o.target,
    rampSeconds: fig(rampMs / 1000, 's'),
    workerRssIdle: fig(idleRss / 2 ** 20, 'MiB'),
    workerRssWaiting: fig(waitingRss / 2 ** 20, 'MiB'),
    workerRssPerWaitingJob: fig((waitingRss - idleRss) / 1024 / Math.max(1, waiting), 'KiB/job'),
    rssSlope: fig(slope * 1024, 'KiB/job'),
    rssAtTarget: fig(idleRss / 2 ** 20 + slope * o.target, 'MiB'),
    cachedWorkflows: fig(Math.max(...samples.map((s) => s.cachedWorkflows)), 'workflows'),
    checkpoints,
    idleHeap,
    perCachedWorkflow: perCachedWorkflow(
      { waitingJobs: 0, cachedWorkflows: idleReading.cachedWorkflows, rssMiB: idleRss / 2 ** 20, heap: idleHeap },
      checkpoints,
    ),
    maxCachedWorkflows: fig(worker.maxCachedWorkflows, 'workflows'),
    heapLimit: fig(worker.heapLimitBytes / 2 ** 20, 'MiB'),
    window: fig(o.windowMs / 1000, 's'),
    samples: samples.length,
    runningActivities: {
      mean: fig(mean(running), 'activities', 3),
      max: fig(Math.max(...running), 'activities'),
      zeroShare: fig((running.filter((r) => r === 0).length / Math.max(1, running.length)) * 100, '% of samples'),
    },
    apiCallsDuringWindow: fig(calls, 'calls'),
    workerConfig: env.workerConfig,
  };
}
