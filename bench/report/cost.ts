// What a job costs on Temporal, per run: billable actions by kind as Temporal Cloud counts them (from the
// sampled histories, test/support/history-cost.ts), plus the activity heartbeats, which Temporal Cloud bills
// but no history records (from the dev server's `action` counter); for polling jobs, the actions beyond
// the polls (each poll is one activity attempt). The same figures feed the targets table and the README.
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

/** Mean over the runs of a mode: what one line (README, headline) can say. */
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

/** Server action types next to the history kind they count (the rest are listed as they come). */
const SERVER_TYPES: Array<[string, string]> = [
  ['grpc_StartWorkflowExecution', 'start'],
  ['command_ScheduleActivityTask', 'activity attempts (first)'],
  ['activity_retry', 'activity attempts (retries)'],
  ['command_BatchMarkers', 'local activities; also the workflow task of the `patched()` marker'],
  ['grpc_SignalWorkflowExecution', 'signals'],
  ['command_StartTimer', 'timers'],
  ['command_UpsertWorkflowSearchAttributes', 'search-attribute upserts; also the TemporalChangeVersion one'],
  [HEARTBEAT_TYPE, `${HEARTBEATS} (in no history)`],
];

type Table = (headers: string[], rows: string[][]) => string;
type Num = (v: number | undefined, digits?: number) => string;

export function costSection(r: BenchResults, table: Table, n: Num): string {
  // One column per mode and profile, at the lowest level measured.
  const seen = new Set<string>();
  const cols = [...costRuns(r, 'callbacks'), ...costRuns(r, 'polling')].filter(({ run }) => {
    const k = `${run.mode} ${run.profile}`;
    return !seen.has(k) && seen.add(k);
  });
  if (cols.length === 0) return '_Not measured in this run._\n';
  const head = ['Per job', ...cols.map(({ run }) => `#${run.mode}, ${run.profile}, ${n(run.concurrency)} jobs`)];
  const kinds = [...new Set(cols.flatMap(({ cost }) => Object.keys(cost.byKind)))].sort((a, b) =>
    a === HEARTBEATS ? 1 : b === HEARTBEATS ? -1 : 0,
  );
  const cell = (f: (c: JobCost) => number | undefined, digits = 2) => cols.map(({ cost }) => `#${n(f(cost), digits)}`);
  const rows = [
    ...kinds.map((k) => [k, ...cell((c) => c.byKind[k] ?? 0)]),
    ['**billable actions**', ...cols.map(({ cost }) => `#**${n(cost.total, 2)}**`)],
    ['of which in the history', ...cell((c) => c.fromHistory)],
    ['polls (the sampled jobs’ review queries and video gets)', ...cell((c) => c.polls)],
    [
      '**actions beyond the polls**',
      ...cols.map(({ cost }) => `#${cost.beyondPolls === undefined ? '–' : `**${n(cost.beyondPolls, 2)}**`}`),
    ],
    ['history events', ...cell((c) => c.events, 1)],
  ];
  const types = [...new Set(cols.flatMap(({ run }) => Object.keys(run.serverActions?.byType ?? {})))];
  const ordered = [
    ...SERVER_TYPES.map(([t]) => t).filter((t) => types.includes(t)),
    ...types.filter((t) => !SERVER_TYPES.some(([s]) => s === t)),
  ];
  const serverRows = ordered.map((t) => [
    `\`${t}\`${SERVER_TYPES.find(([s]) => s === t) ? ` (${SERVER_TYPES.find(([s]) => s === t)![1]})` : ''}`,
    ...cols.map(({ run }) => `#${n(run.serverActions?.byType[t] ?? 0, 2)}`),
  ]);
  serverRows.push(['**total**', ...cols.map(({ run }) => `#**${n(run.serverActions?.perJob, 2)}**`)]);
  const server = cols.some(({ run }) => run.serverActions)
    ? `Cross-check: the dev server's own \`action\` counter (its Prometheus endpoint, read before and after each run, per job of the run). It counts a little differently from Temporal Cloud: the workflow task that records the \`patched()\` marker and the TemporalChangeVersion upsert count there, and not on Temporal Cloud. Activity heartbeats are billed on Temporal Cloud but recorded in no history, so the count above takes them from this counter.\n\n${table(['Dev server action type', ...head.slice(1)], serverRows)}`
    : "The dev server's `action` counter could not be read in this run (no cross-check).\n";
  return `Billable actions per job as Temporal Cloud counts them (docs.temporal.io/cloud/actions), from ${cols.map(({ cost }) => cost.sampled).join('/')} sampled histories per column (test/support/history-cost.ts), plus the activity heartbeats:\n\n${table(head, rows)}\n${server}`;
}
