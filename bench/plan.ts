// What `npm run bench` runs: the full plan, and the --quick plan (same scenarios, small numbers) that
// finishes in under two minutes. Worker configurations compared by the tuning section live here too.
import { cacheSizeForBudget, WORKER_MEMORY } from '../src/config/worker-cache.js';
import type { Timing } from '../src/job/input.js';
import type { Mode, ProfileName } from './profiles.js';
import type { WorkerConfigDef } from './lib/harness.js';

export interface Plan {
  /** Wall-time budget of the whole run: a run that would not fit is skipped and reported as skipped. */
  budgetMs: number;
  /**
   * Share of the time left after the smallest level that the waiting scenario (6) gets, and the least it
   * gets whatever the share: the larger levels get the rest, and are skipped before it is cut short.
   */
  waitingShare: number;
  waitingMinMs: number;
  /** Concurrency levels, ascending: the first runs for every variant, higher ones while the budget lasts. */
  levels: number[];
  profiles: ProfileName[];
  modes: Mode[];
  /** Timing input added to every job of the plan (on top of the profile's). */
  timing: Partial<Timing>;
  historySample: number;
  /** Jobs run, unrecorded, on every fresh worker process before it is measured. */
  warmup: number;
  tuning: { level: number; profile: ProfileName; modes: Mode[]; configs: string[] };
  /**
   * The cost of metrics and tracing (issue 16): the same burst on worker configs that differ only in them,
   * side by side, `rounds` times in alternating order (the noise of one burst is of the same size).
   */
  observability: { level: number; profile: ProfileName; mode: Mode; configs: string[]; rounds: number };
  historyIndependence: { jobs: number; short: { reviewMs: number; videoMs: number }; longFactor: number };
  waiting: {
    callbacksTarget: number;
    /** Jobs added per checkpoint until the sticky cache is full (the memory of a cached workflow), then past it. */
    chunk: number;
    chunkPastCache: number;
    pollingJobs: number;
    windowMs: number;
    videoPollIntervalMs: number;
    /**
     * Other worker configs waiting the same way afterwards, with the time left: to the same target, or one
     * large chunk past their own cache (enough to show eviction).
     */
    compare: Array<{ config: string; upTo: 'target' | 'past-cache' }>;
  };
  http: { seconds: number; inFlight: number; poolSizes: number[] };
  /** Longest one burst may take: the run is cut there and reported as cut. */
  runTimeoutMs: (n: number) => number;
}

/** Our worker's sticky cache at its default memory budget (src/config/worker-cache.ts), as src/worker.ts sizes it. */
const DEFAULT_CACHE = { maxCachedWorkflows: cacheSizeForBudget(WORKER_MEMORY.budgetMiB) };
/** The V8 heap limit `npm run worker` and the image start our worker with (Node flag, every thread). */
const WORKER_HEAP = ['--max-old-space-size=256'];
/** Our worker's process: the package's bundle, the budget-sized cache, the heap limit. */
const OURS = {
  options: { ...DEFAULT_CACHE },
  bundle: 'package',
  nodeArgs: WORKER_HEAP,
} as const satisfies WorkerConfigDef;

export const WORKER_CONFIGS: Record<string, WorkerConfigDef> = {
  /**
   * Our worker's defaults: the sticky cache from WORKER_MEMORY_BUDGET_MIB's default, otherwise the SDK's
   * (40 workflow-task slots, 100 activity slots, 10 + 10 pollers), bundled as our worker does, in a process
   * with the 256 MiB V8 heap limit `npm run worker` and the image set.
   */
  default: OURS,
  /**
   * The same on Node's default heap limit (a worker started without the flag): V8 collects what evicted
   * workflows leave much later.
   */
  'default-node-heap': { ...OURS, nodeArgs: [] },
  /** The SDK's sticky cache (sized from the V8 heap limit) on Node's heap: how our worker ran before 0.2.0. */
  'sdk-cache': { options: {}, bundle: 'package' },
  /** The same without `workflowPreloadModules`: our modules and zod evaluated again for every workflow run. */
  'no-preload': { ...OURS, bundle: 'package-no-preload' },
  /** Pollers that scale with the backlog instead of a fixed 10. */
  autoscale: {
    ...OURS,
    options: {
      ...DEFAULT_CACHE,
      workflowTaskPollerBehavior: { type: 'autoscaling' },
      activityTaskPollerBehavior: { type: 'autoscaling' },
    },
  },
  /** Eager activity dispatch off (the SDK reserves 3 activity slots per workflow task by default). */
  'no-eager': { ...OURS, options: { ...DEFAULT_CACHE, maxEagerActivityReservationsPerWorkflowTask: 0 } },
  /** More workflow-task and activity slots and pollers. */
  wide: {
    ...OURS,
    options: {
      ...DEFAULT_CACHE,
      maxConcurrentWorkflowTaskExecutions: 200,
      maxConcurrentActivityTaskExecutions: 500,
      maxConcurrentWorkflowTaskPolls: 20,
      maxConcurrentActivityTaskPolls: 20,
    },
  },
  /** Our defaults with PROMETHEUS_BIND_ADDRESS set: the SDK's metrics and ours, scraped every 5 s. */
  metrics: { ...OURS, observability: { metrics: true } },
  /** Our defaults with traces sampled at 10 % (OTEL_TRACES_SAMPLER=parentbased_traceidratio, ARG 0.1). */
  'tracing-10': { ...OURS, bundle: 'package-otel', observability: { tracingRatio: 0.1 } },
  /** Both. */
  'metrics-tracing-10': { ...OURS, bundle: 'package-otel', observability: { metrics: true, tracingRatio: 0.1 } },
  /** The trivial workflow's worker (scenario 2). */
  trivial: { options: {}, bundle: 'trivial' },
  /** The trivial workflow on the package's bundle: what loading our workflow modules costs each run. */
  'trivial-on-package': OURS,
  /** The same without `workflowPreloadModules`. */
  'trivial-on-package-no-preload': { ...OURS, bundle: 'package-no-preload' },
};

export const MAIN_WORKER_CONFIG = 'default';

/** The observability comparison: our default worker, then metrics, tracing at 10 %, and both. */
const OBSERVABILITY = {
  profile: 'zero',
  mode: 'callbacks',
  configs: ['default', 'metrics', 'tracing-10', 'metrics-tracing-10'],
} as const satisfies Partial<Plan['observability']>;

export const FULL: Plan = {
  // At most 66 minutes on 2 cores (BENCHMARKS.md says what its run took). The levels are the two the cost
  // targets of issue 15 name (throughput at 100 and 1,000 concurrent jobs); 5,000 can be added for a longer run.
  budgetMs: 66 * 60_000,
  waitingShare: 0.2,
  // 10,000 callback waiters took 7 minutes on 2 busy cores (history-v2), twice over, plus the rest.
  waitingMinMs: 24 * 60_000,
  levels: [100, 1_000],
  profiles: ['zero', 'realistic'],
  modes: ['callbacks', 'polling'],
  timing: {},
  historySample: 5,
  warmup: 20,
  tuning: {
    level: 100,
    profile: 'zero',
    modes: ['polling'],
    configs: ['default', 'no-eager', 'no-preload', 'wide', 'autoscale'],
  },
  observability: { ...OBSERVABILITY, level: 100, rounds: 3 },
  historyIndependence: { jobs: 6, short: { reviewMs: 200, videoMs: 1_000 }, longFactor: 5 },
  waiting: {
    callbacksTarget: 10_000,
    chunk: 250,
    chunkPastCache: 1_000,
    pollingJobs: 300,
    windowMs: 10_000,
    videoPollIntervalMs: 10_000,
    compare: [
      { config: 'default-node-heap', upTo: 'target' },
      { config: 'sdk-cache', upTo: 'past-cache' },
    ],
  },
  http: { seconds: 3, inFlight: 128, poolSizes: [8, 32, 128] },
  runTimeoutMs: (n) => 90_000 + n * 300,
};

export const QUICK: Plan = {
  budgetMs: 110_000,
  waitingShare: 0.35,
  waitingMinMs: 0,
  levels: [10],
  profiles: ['zero', 'realistic'],
  modes: ['callbacks', 'polling'],
  // The callback safety net (60 s by default) would dominate a two-minute run if a callback were lost.
  timing: { callbackFallbackPollMs: 5_000 },
  historySample: 2,
  // Figures of a quick run include the workers' warm-up: it is a smoke test, not a measurement.
  warmup: 0,
  tuning: { level: 10, profile: 'zero', modes: ['polling'], configs: ['default', 'no-preload'] },
  observability: { ...OBSERVABILITY, level: 10, rounds: 1 },
  historyIndependence: { jobs: 2, short: { reviewMs: 200, videoMs: 500 }, longFactor: 3 },
  waiting: {
    callbacksTarget: 40,
    chunk: 40,
    chunkPastCache: 40,
    pollingJobs: 20,
    windowMs: 2_000,
    videoPollIntervalMs: 1_000,
    compare: [],
  },
  http: { seconds: 0.5, inFlight: 64, poolSizes: [32] },
  runTimeoutMs: (n) => 30_000 + n * 300,
};
