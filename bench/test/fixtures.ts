// Made-up benchmark figures for the unit tests of what is computed from a results file: one run.
import { summarize } from '../lib/stats.js';
import { fig, sfig, type RunResult } from '../results.js';

/** One run of 100 jobs at 100 concurrent, 10 jobs/s; `over` changes what a test is about. */
export const benchRun = (over: Partial<RunResult>): RunResult => ({
  label: 'x',
  kind: 'ours',
  mode: 'callbacks',
  profile: 'zero',
  concurrency: 100,
  jobs: 100,
  completed: 100,
  failed: 0,
  timedOut: false,
  wall: fig(10, 's'),
  throughput: fig(10, 'jobs/s'),
  latency: sfig(summarize([1_000, 2_000]), 'ms'),
  ...over,
});
