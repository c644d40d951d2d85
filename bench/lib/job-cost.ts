// What a job costs on Temporal, per run: billable actions by kind as Temporal Cloud counts them (from the
// sampled histories, test/support/history-cost.ts), plus the activity heartbeats, which Temporal Cloud bills
// but no history records (from the dev server's `action` counter); for polling jobs, the actions beyond
// the polls (each poll is one activity attempt). BENCHMARKS.md and the README's cost line state these
// figures; bench/test/benchmarks-page.test.ts checks them against the results JSON with this code.
import type { BenchResults, RunResult } from '../results.js';
import type { Mode } from '../profiles.js';

export interface JobCost {
  /** Kind -> actions per job (mean over the sampled histories; heartbeats from the server counter). */
  byKind: Record<string, number>;
  /** Every billable action per job, heartbeats included, and without them (the history alone). */
  total: number;
  fromHistory: number;
  /** Polling: the sampled jobs' own polls, and the actions beyond them. */
  polls?: number;
  beyondPolls?: number;
  events: number;
  sampled: number;
}

export const HEARTBEATS = 'activity heartbeats';
const HEARTBEAT_TYPE = 'grpc_RecordActivityTaskHeartbeat';
const r2 = (v: number) => Math.round(v * 100) / 100;

export function jobCost(run: RunResult): JobCost | undefined {
  const sample = run.historySample;
  const cost = sample?.cost;
  if (!sample || !cost || sample.sampled === 0) return undefined;
  const heartbeats = run.serverActions?.byType[HEARTBEAT_TYPE] ?? 0;
  const byKind = { ...cost.byKind, ...(heartbeats > 0 ? { [HEARTBEATS]: heartbeats } : {}) };
  const total = r2(cost.actionsPerJob.mean + heartbeats);
  return {
    byKind,
    total,
    fromHistory: cost.actionsPerJob.mean,
    ...(cost.pollsPerJob !== undefined ? { polls: cost.pollsPerJob, beyondPolls: r2(total - cost.pollsPerJob) } : {}),
    events: sample.eventsPerJob.mean,
    sampled: sample.sampled,
  };
}

/** The package's runs of one mode that have a cost, lowest level first. */
export function costRuns(r: BenchResults, mode: Mode): Array<{ run: RunResult; cost: JobCost }> {
  return r.runs
    .filter((x) => x.kind === 'ours' && x.mode === mode)
    .sort((a, b) => a.concurrency - b.concurrency)
    .flatMap((run) => {
      const cost = jobCost(run);
      return cost ? [{ run, cost }] : [];
    });
}

/** Mean over the runs of a mode: what one line (the README's cost line) can say. */
export function meanCost(
  r: BenchResults,
  mode: Mode,
): { total: number; beyondPolls?: number; runs: number } | undefined {
  const xs = costRuns(r, mode).map((x) => x.cost);
  if (xs.length === 0) return undefined;
  const avg = (f: (c: JobCost) => number) => r2(xs.reduce((a, c) => a + f(c), 0) / xs.length);
  const beyond = xs.every((c) => c.beyondPolls !== undefined) ? avg((c) => c.beyondPolls!) : undefined;
  return { total: avg((c) => c.total), ...(beyond !== undefined ? { beyondPolls: beyond } : {}), runs: xs.length };
}
