// The provider-quota section of BENCHMARKS.md (issue 26), from `npm run bench:quota`'s results file
// (bench/results/quota.json): a separate run, since the main plan is about one service profile and worker
// configurations, not about a quota. A fixed file, so that regenerating BENCHMARKS.md keeps it.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export interface QuotaVariant {
  variant: string;
  succeeded: number;
  failed: number;
  wallMs: number;
  ideal: number;
  refused: number;
  peakInFlight: number;
  utilization: number;
  releaseToCreateMs?: { p50: number; p95: number };
  actionsPerJob?: { run: number; gate: number; admission: number; baseline?: number };
}

export interface QuotaResults {
  date: string;
  jobs: number;
  quota: number;
  videoMs: number;
  latencyMs: number;
  variants: QuotaVariant[];
  /** What else ran on the machine, when something did (written by hand into the results file). */
  conditions?: string;
}

const RESULTS = fileURLToPath(new URL('../results/quota.json', import.meta.url));
const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** `root`: the project root as seen from the page it goes into (links). */
export function quotaSection(r: QuotaResults, root = ''): string {
  const rows = r.variants.map((v) =>
    [
      v.variant,
      `${v.succeeded} / ${v.failed}`,
      `${s(v.wallMs)} (${(v.wallMs / v.ideal).toFixed(2)}× the ideal ${s(v.ideal)})`,
      `${Math.round(v.utilization * 100)} %`,
      v.releaseToCreateMs ? `${v.releaseToCreateMs.p50} / ${v.releaseToCreateMs.p95} ms` : '-',
      String(v.refused),
      String(v.peakInFlight),
    ].join(' | '),
  );
  const a = r.variants.find((v) => v.variant === 'admission')?.actionsPerJob;
  return `\`npm run bench:quota -- --jobs ${r.jobs} --quota ${r.quota} --video-ms ${r.videoMs}\` (${r.date.slice(0, 10)}): ${r.jobs} jobs
started at once against a provider that allows ${r.quota} video tasks in flight and answers 429 beyond (the
sandbox, ${r.latencyMs} ms per response, generation ${s(r.videoMs)}), one in-process worker, callbacks on;
three ways side by side in one run${r.conditions ? ` (${r.conditions})` : ''}. *admission*: the workers' \`VIDEO_MAX_TASKS_IN_FLIGHT\` is the
provider's quota. *no admission*: the same jobs without it (the package before it). *plain script*: no
Temporal, a loop keeping ${r.quota} creates in flight and polling each task every 500 ms.

| variant | succeeded / failed | wall time | provider utilization | slot release → next create, p50 / p95 | 429s | peak in flight |
|---|---|---|---|---|---|---|
${rows.map((row) => `| ${row} |`).join('\n')}

Utilization is busy slot-seconds (each task from its create to its end) over the slots available from the
first create to the last task's end. ${
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

/** The section from the results file, or a note that it has not been run. */
export function quotaSectionFromFile(): string {
  if (!existsSync(RESULTS)) return 'Not run yet: `npm run bench:quota` writes bench/results/quota.json.\n';
  return quotaSection(JSON.parse(readFileSync(RESULTS, 'utf8')) as QuotaResults);
}
