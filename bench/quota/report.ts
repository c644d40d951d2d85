// What `npm run bench:quota` (issue 26) writes next to its results file (bench/results/quota.md): its
// command, the three variants side by side, where a freed slot's idle time goes, the actions per job.
import type { ChainSteps, Spread } from './provider-timeline.js';

export interface QuotaVariant {
  variant: string;
  succeeded: number;
  failed: number;
  wallMs: number;
  ideal: number;
  refused: number;
  /** Which of the provider's limits refused them. */
  refusedBy?: { tasksInFlight: number; perMinute: number };
  peakInFlight: number;
  utilization: number;
  /** From a task's final state at the provider to the next create on its slot, beyond what the rate forced. */
  slotIdleMs?: Spread | undefined;
  /** The steps that idle time runs along (admission only). */
  slotChainMs?: ChainSteps;
  /** From a job's start to its create at the provider, by priority. */
  createWaitByPriorityMs?: Record<string, Spread | undefined>;
  actionsPerJob?: { run: number; gate: number; admission: number; baseline?: number };
}

export interface QuotaResults {
  date: string;
  jobs: number;
  quota: number;
  createsPerMinute: number;
  workers: number;
  priorities: number[];
  videoMs: number;
  latencyMs: number;
  /** Dynamic-config values the dev server ran with (`--server-config`). */
  serverConfig?: string[];
  variants: QuotaVariant[];
  /** What else ran on the machine, when something did (written by hand into the results file). */
  conditions?: string;
}

const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

const ms = (x: Spread | undefined) => (x ? `${x.p50} / ${x.p95} ms` : '-');

const CHAIN_STEPS: Array<[keyof ChainSteps, string]> = [
  ['finalToCallback', "task final → the provider's callback delivered"],
  ['callbackToConfirmed', 'callback → the confirming query answered'],
  ['confirmedToReleased', 'confirmed → the job releases its slot (signal to the gate)'],
  ['releasedToGranted', 'released (or the rate window opened, if later) → the next job granted'],
  ['grantedToCreated', 'granted → its create at the provider'],
];

/** `root`: the project root as seen from the page it goes into (links). */
export function quotaSection(r: QuotaResults, root = ''): string {
  const rows = r.variants.map((v) =>
    [
      v.variant,
      `${v.succeeded} / ${v.failed}`,
      `${s(v.wallMs)} (${(v.wallMs / v.ideal).toFixed(2)}× the ideal ${s(v.ideal)})`,
      `${Math.round(v.utilization * 100)} %`,
      ms(v.slotIdleMs),
      r.priorities.map((p) => ms(v.createWaitByPriorityMs?.[String(p)])).join(' · '),
      v.refusedBy && v.refused > 0
        ? `${v.refused} (${v.refusedBy.tasksInFlight} in flight, ${v.refusedBy.perMinute} per minute)`
        : String(v.refused),
      String(v.peakInFlight),
    ].join(' | '),
  );
  const admission = r.variants.find((v) => v.variant === 'admission');
  const a = admission?.actionsPerJob;
  const chain = admission?.slotChainMs;
  return `\`npm run bench:quota -- --jobs ${r.jobs} --quota ${r.quota} --creates-per-minute ${r.createsPerMinute} --video-ms ${r.videoMs} --workers ${r.workers}${(r.serverConfig ?? []).map((c) => ` --server-config ${c}`).join('')}\` (${r.date.slice(0, 10)}):
${r.jobs} jobs of priorities ${r.priorities.join(' and ')} (alternating) started at once against a provider that allows ${r.quota} video tasks in
flight and ${r.createsPerMinute} creates in any 60 s, and answers 429 beyond either (the sandbox, ${r.latencyMs} ms per response, generation
${s(r.videoMs)}), ${r.workers} workers on one task queue, callbacks on; three ways side by side in one run${r.conditions ? ` (${r.conditions})` : ''}.
*admission*: the workers' \`VIDEO_MAX_TASKS_IN_FLIGHT\` and \`VIDEO_MAX_CREATES_PER_MINUTE\` are the provider's limits.
*no admission*: the same jobs without them. *plain script*: no Temporal, a loop keeping ${r.quota} creates in flight
within the rate and polling each task every 500 ms. The ideal is both limits simulated with every create at the
earliest moment they allow (bench/quota/provider-timeline.ts).

| variant | succeeded / failed | wall time | provider utilization | slot idle, p50 / p95 | start → create, p50 / p95, by priority (${r.priorities.join(' · ')}) | 429s | peak in flight |
|---|---|---|---|---|---|---|---|
${rows.map((row) => `| ${row} |`).join('\n')}

Utilization is busy slot-seconds (each task from its create to its end) over the slots available from the
first create to the last task's end. The slot's idle time is as the provider sees it: from a task's final
state to the next create on its slot, less any time the creates-per-minute window forced.
${
  chain
    ? `
Where the admission variant's idle time goes, each freed slot followed to the create that reused it (p50 / p95;
the pairing of a freed slot with the job that got it is by order, so single steps can be negative):

| step | p50 / p95 |
|---|---|
${CHAIN_STEPS.map(([k, label]) => `| ${label} | ${ms(chain[k])} |`).join('\n')}
`
    : ''
}
${
  a
    ? `Billable actions per job, counted from the histories: ${a.run} in the run and ${a.gate} in the gate. Of
the run's, ${a.baseline} are what a job that never waits costs; admission adds **${a.admission}** in all. A job
that waits adds the create attempt that only queued it, the grant, the \`waiting_for_quota\` search-attribute
upsert, and in the gate the ask, the release and its share of the lease timers; one admitted at once (a slot
was free when it asked, not in a burst) adds the attempt that asked and, in the gate, the ask and the release.
The issue's target was at most 3 ([docs/operations.md](${root}docs/operations.md#provider-quotas)).`
    : ''
}
`;
}
