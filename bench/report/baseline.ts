// Before/after across two runs: the same figures read from an earlier results JSON (the baseline, kept in
// bench/results/) and from this run, for changes to the package's code that one run cannot measure both
// ways. Stored in the results JSON, so the report is regenerated from one file.
import { perCachedWorkflow } from '../lib/cache-memory.js';
import type { BaselineComparison, BenchResults, Figure, RunResult, WaitingResult } from '../results.js';
import { jobCost } from './cost.js';
import { PER_CACHED_FIGURE } from './targets.js';

type Pick = (r: BenchResults) => Figure | undefined;
const events = (run: RunResult | undefined): Figure | undefined =>
  run?.historyEvents ? { value: run.historyEvents.mean, unit: 'events/job' } : undefined;

const tuning = (config: string) => (r: BenchResults) => r.tuning.find((t) => t.config === config)?.run;
const mainRun = (mode: 'callbacks' | 'polling', level: number) => (r: BenchResults) =>
  r.runs.find((x) => x.kind === 'ours' && x.mode === mode && x.profile === 'zero' && x.concurrency === level);
const waiting = (mode: 'callbacks' | 'polling') => (r: BenchResults) =>
  r.waiting.find((w) => w.mode === mode && w.workerConfig === r.mainWorkerConfig);
const p50 = (run: RunResult | undefined): Figure | undefined =>
  run ? { value: run.latency.p50, unit: run.latency.unit } : undefined;
const trivialShare = (mode: 'callbacks' | 'polling', level: number) => (r: BenchResults) => {
  const ours = mainRun(mode, level)(r);
  const triv = r.runs.find((x) => x.kind === 'trivial' && x.concurrency === level);
  return ours && triv
    ? { value: Math.round((ours.throughput.value / triv.throughput.value) * 1000) / 10, unit: '%' }
    : undefined;
};
const t = (v: number) => Math.round(v * 100) / 100;

/**
 * Billable actions per job counted from the history, heartbeats apart (no history has them): from the
 * counted sample, or, for results from before it was counted, from the sampled event types (each activity
 * once: the retries of a poll were not recorded; polling: the two activities besides the polls).
 */
function historyActions(mode: 'callbacks' | 'polling') {
  return (r: BenchResults): Figure | undefined => {
    const run = mainRun(mode, 100)(r);
    const cost = run && jobCost(run);
    if (cost)
      return {
        value: mode === 'polling' ? t(cost.fromHistory - (cost.polls ?? 0)) : cost.fromHistory,
        unit: 'actions/job',
      };
    const e = run?.historySample?.byType;
    if (!e) return undefined;
    const k = (type: string) => e[type] ?? 0;
    const rest =
      k('WorkflowExecutionStarted') +
      k('WorkflowExecutionSignaled') +
      k('TimerStarted') +
      k('UpsertWorkflowSearchAttributes');
    return {
      value: t(rest + (mode === 'polling' ? 2 : k('ActivityTaskStarted'))),
      unit: 'actions/job (from the event types)',
    };
  };
}

const cbLatency = (q: 'p50' | 'p99') => (r: BenchResults) => {
  const s = mainRun('callbacks', 100)(r)?.callbackLatency?.reviewToCreateMs;
  return s?.count ? { value: s[q], unit: 'ms' } : undefined;
};

function perCached(w: WaitingResult | undefined): Figure | undefined {
  if (!w) return undefined;
  const m =
    w.perCachedWorkflow ??
    perCachedWorkflow({ waitingJobs: 0, cachedWorkflows: 0, rssMiB: w.workerRssIdle.value }, w.checkpoints);
  return m ? { value: m.rssKiB, unit: 'KiB' } : undefined;
}

const FIGURES: Array<[string, Pick]> = [
  ['Package, callbacks, zero, 100 jobs: billable actions per job in the history', historyActions('callbacks')],
  [
    'Package, polling, zero, 100 jobs: billable actions per job in the history, beyond the polls',
    historyActions('polling'),
  ],
  ['Package, callbacks, zero, 100 jobs: history events per job', (r) => events(mainRun('callbacks', 100)(r))],
  ['Package, polling, zero, 100 jobs: history events per job', (r) => events(mainRun('polling', 100)(r))],
  ['Package, callbacks, zero, 100 jobs: review callback → create p50', cbLatency('p50')],
  ['Package, callbacks, zero, 100 jobs: review callback → create p99', cbLatency('p99')],
  ['Package, callbacks, zero, 100 jobs: share of the trivial workflow’s rate', trivialShare('callbacks', 100)],
  ['Package, polling, zero, 100 jobs: share of the trivial workflow’s rate', trivialShare('polling', 100)],
  ['Package, callbacks, zero, 1,000 jobs: share of the trivial workflow’s rate', trivialShare('callbacks', 1_000)],
  ['Package, polling, zero, 1,000 jobs: share of the trivial workflow’s rate', trivialShare('polling', 1_000)],
  [PER_CACHED_FIGURE, (r) => perCached(waiting('callbacks')(r))],
  [
    'Worker RSS with jobs waiting for their review callback (default worker)',
    (r) => {
      const w = waiting('callbacks')(r);
      return w
        ? { value: w.workerRssWaiting.value, unit: `MiB with ${w.jobs.toLocaleString('en-US')} waiting` }
        : undefined;
    },
  ],
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
