// Before/after across two runs: the same figures read from an earlier results JSON (the baseline, kept in
// bench/results/) and from this run, for changes to the package's code that one run cannot measure both
// ways. Stored in the results JSON, so the report is regenerated from one file.
import type { BenchResults, Figure, RunResult } from '../results.js';

export interface BaselineComparison {
  /** The baseline's results file, its start time and what changed since. */
  file: string;
  startedAt: string;
  change: string;
  rows: Array<{ figure: string; before: Figure | null; after: Figure | null }>;
}

type Pick = (r: BenchResults) => Figure | undefined;

const tuning = (config: string) => (r: BenchResults) => r.tuning.find((t) => t.config === config)?.run;
const mainRun = (mode: 'callbacks' | 'polling', level: number) => (r: BenchResults) =>
  r.runs.find((x) => x.kind === 'ours' && x.mode === mode && x.profile === 'zero' && x.concurrency === level);
const waiting = (mode: 'callbacks' | 'polling') => (r: BenchResults) =>
  r.waiting.find((w) => w.mode === mode && w.workerConfig === r.mainWorkerConfig);
const p50 = (run: RunResult | undefined): Figure | undefined =>
  run ? { value: run.latency.p50, unit: run.latency.unit } : undefined;

const FIGURES: Array<[string, Pick]> = [
  ["Trivial workflow on the package's bundle: worker CPU per run", (r) => tuning('trivial-on-package')(r)?.cpu?.worker],
  ['Trivial workflow on its own bundle: worker CPU per run (the floor)', (r) => tuning('trivial')(r)?.cpu?.worker],
  ['Package, polling, zero, 100 jobs, default worker (tuning): jobs/s', (r) => tuning('default')(r)?.throughput],
  [
    'Package, polling, zero, 100 jobs, default worker (tuning): worker CPU per job',
    (r) => tuning('default')(r)?.cpu?.worker,
  ],
  [
    'Package, polling, zero, 100 jobs, default worker (tuning): server CPU per job',
    (r) => tuning('default')(r)?.cpu?.server,
  ],
  ['Package, callbacks, zero, 100 jobs: jobs/s', (r) => mainRun('callbacks', 100)(r)?.throughput],
  ['Package, callbacks, zero, 100 jobs: latency p50', (r) => p50(mainRun('callbacks', 100)(r))],
  [
    'Package, callbacks, zero, 100 jobs: final-state callbacks whose next query came only ≥ 0.9 × callbackFallbackPollMs later',
    (r) => {
      const c = mainRun('callbacks', 100)(r)?.callbackLatency?.callbacks;
      return c ? { value: c.answeredByFallbackPoll, unit: `of ${c.final} callbacks` } : undefined;
    },
  ],
  ['Package, polling, zero, 100 jobs: jobs/s', (r) => mainRun('polling', 100)(r)?.throughput],
  ['Package, polling, zero, 1,000 jobs: jobs/s', (r) => mainRun('polling', 1_000)(r)?.throughput],
  ['Package, callbacks, zero, 1,000 jobs: jobs/s', (r) => mainRun('callbacks', 1_000)(r)?.throughput],
  ['Worker RSS per job waiting for its review callback (default worker)', (r) => waiting('callbacks')(r)?.rssSlope],
  [
    'Jobs waiting for their review callback, reached in the time budget (default worker)',
    (r) => {
      const w = waiting('callbacks')(r);
      return w ? { value: w.jobs, unit: `of ${w.target} jobs` } : undefined;
    },
  ],
  ['Worker RSS per job polling a long generation (default worker)', (r) => waiting('polling')(r)?.rssSlope],
];

export function compareWithBaseline(
  current: BenchResults,
  baseline: BenchResults,
  file: string,
  change: string,
): BaselineComparison {
  return {
    file,
    startedAt: baseline.startedAt,
    change,
    rows: FIGURES.map(([figure, pick]) => ({ figure, before: pick(baseline) ?? null, after: pick(current) ?? null })),
  };
}
