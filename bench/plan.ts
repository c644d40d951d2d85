// What `npm run bench` runs: the full plan, and the --quick plan (same scenarios, small numbers) that
// finishes in under two minutes. Worker configurations compared by the tuning section live here too.
import type { Timing } from '../src/workflows/input.js';
import type { Mode, ProfileName } from './profiles.js';
import type { WorkerConfigDef } from './lib/harness.js';

export interface Plan {
  /** Wall-time budget of the whole run: a run that would not fit is skipped and reported as skipped. */
  budgetMs: number;
  /** Share of the time left after the smallest level that the waiting scenario (6) gets; the larger levels get the rest. */
  waitingShare: number;
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
  historyIndependence: { jobs: number; short: { reviewMs: number; videoMs: number }; longFactor: number };
  waiting: {
    callbacksTarget: number;
    chunk: number;
    pollingJobs: number;
    windowMs: number;
    videoPollIntervalMs: number;
    cappedConfig: string;
  };
  http: { seconds: number; inFlight: number; poolSizes: number[] };
  /** An earlier full run to compare with (path from the project root), and what changed since. */
  baseline?: { file: string; change: string };
  /** Longest one burst may take: the run is cut there and reported as cut. */
  runTimeoutMs: (n: number) => number;
}

export const WORKER_CONFIGS: Record<string, WorkerConfigDef> = {
  /** The SDK's defaults (40 workflow-task slots, 100 activity slots, 10 + 10 pollers), bundled as our worker does. */
  default: { options: {}, bundle: 'package' },
  /** The same without `workflowPreloadModules`: our modules and zod evaluated again for every workflow run. */
  'no-preload': { options: {}, bundle: 'package-no-preload' },
  /** Pollers that scale with the backlog instead of a fixed 10. */
  autoscale: {
    options: {
      workflowTaskPollerBehavior: { type: 'autoscaling' },
      activityTaskPollerBehavior: { type: 'autoscaling' },
    },
    bundle: 'package',
  },
  /** More workflow-task and activity slots and pollers. */
  wide: {
    options: {
      maxConcurrentWorkflowTaskExecutions: 200,
      maxConcurrentActivityTaskExecutions: 500,
      maxConcurrentWorkflowTaskPolls: 20,
      maxConcurrentActivityTaskPolls: 20,
    },
    bundle: 'package',
  },
  /**
   * A 1 GiB V8 heap for the worker process (Node flag): V8 then collects evicted workflows instead of
   * growing towards its default limit, and the SDK sizes its default sticky cache from that heap.
   */
  'heap-1g': { options: {}, bundle: 'package', nodeArgs: ['--max-old-space-size=1024'] },
  /** The trivial workflow's worker (scenario 2). */
  trivial: { options: {}, bundle: 'trivial' },
  /** The trivial workflow on the package's bundle: what loading our workflow modules costs each run. */
  'trivial-on-package': { options: {}, bundle: 'package' },
  /** The same without `workflowPreloadModules`. */
  'trivial-on-package-no-preload': { options: {}, bundle: 'package-no-preload' },
};

export const MAIN_WORKER_CONFIG = 'default';

export const FULL: Plan = {
  // Every level of every variant, and 10,000 waiting jobs, took about 75 minutes on 2 cores.
  budgetMs: 85 * 60_000,
  waitingShare: 0.2,
  levels: [100, 1_000, 5_000],
  profiles: ['zero', 'realistic'],
  modes: ['callbacks', 'polling'],
  timing: {},
  historySample: 5,
  warmup: 20,
  tuning: { level: 100, profile: 'zero', modes: ['polling'], configs: ['default', 'no-preload', 'wide', 'autoscale'] },
  historyIndependence: { jobs: 6, short: { reviewMs: 200, videoMs: 1_000 }, longFactor: 5 },
  waiting: {
    callbacksTarget: 10_000,
    chunk: 500,
    pollingJobs: 300,
    windowMs: 10_000,
    videoPollIntervalMs: 10_000,
    cappedConfig: 'heap-1g',
  },
  http: { seconds: 3, inFlight: 128, poolSizes: [8, 32, 128] },
  runTimeoutMs: (n) => 90_000 + n * 300,
  baseline: {
    file: 'bench/results/2026-11-21-before-preload.json',
    change:
      'early review callbacks kept instead of dropped (src/workflows/run-state.ts); zod schemas built on first use (the lazy module, now src/model/lazy.ts) and the workflow modules preloaded once per worker thread (`workflowPreloadModules`)',
  },
};

export const QUICK: Plan = {
  budgetMs: 110_000,
  waitingShare: 0.35,
  levels: [10],
  profiles: ['zero', 'realistic'],
  modes: ['callbacks', 'polling'],
  // The callback safety net (60 s by default) would dominate a two-minute run if a callback were lost.
  timing: { callbackFallbackPollMs: 5_000 },
  historySample: 2,
  // Figures of a quick run include the workers' warm-up: it is a smoke test, not a measurement.
  warmup: 0,
  tuning: { level: 10, profile: 'zero', modes: ['polling'], configs: ['default', 'no-preload'] },
  historyIndependence: { jobs: 2, short: { reviewMs: 200, videoMs: 500 }, longFactor: 3 },
  waiting: {
    callbacksTarget: 40,
    chunk: 40,
    pollingJobs: 20,
    windowMs: 2_000,
    videoPollIntervalMs: 1_000,
    cappedConfig: '',
  },
  http: { seconds: 0.5, inFlight: 64, poolSizes: [32] },
  runTimeoutMs: (n) => 30_000 + n * 300,
};
