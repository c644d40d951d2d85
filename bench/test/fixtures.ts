// Made-up benchmark figures for the report's unit tests: one run, and the machine it ran on.
import { summarize } from '../lib/stats.js';
import { fig, sfig, type BenchResults, type RunResult } from '../results.js';

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

/** A 2-core machine; `over` sets the load averages a test needs. */
export const benchMachine = (over: Partial<BenchResults['machine']>): BenchResults['machine'] => ({
  cores: 2,
  cpuModel: 'cpu',
  memoryBytes: 2 ** 33,
  platform: 'linux',
  kernel: '6',
  node: 'v20',
  temporalCli: 'temporal version 1.9.1',
  temporalSdk: '1.24.0',
  undici: '7',
  loadAverageAtStart: [0, 0, 0],
  ...over,
});
