// The cost of metrics and tracing (issue 16), from the observability phase: the same burst on worker
// configs that differ only in them, run in rounds side by side; jobs per second and worker CPU per job
// against the config with both off, measured in the same run.
import type { BenchResults, RunResult } from '../results.js';

type Table = (headers: string[], rows: string[][]) => string;
type Num = (v: number | undefined, digits?: number) => string;

export interface ObservabilityCost {
  config: string;
  /** Jobs/s of each round, in round order. */
  rounds: number[];
  jobsPerSecond: number;
  workerCpuMsPerJob: number | undefined;
  /** Jobs/s against the config with both off (1 = the same). */
  ratioToOff: number | undefined;
}

const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN);
const completedRuns = (runs: RunResult[]) => runs.filter((x) => !x.timedOut && x.completed > 0);

export function observabilityCosts(r: BenchResults, off = r.mainWorkerConfig): ObservabilityCost[] {
  const runs = r.observability ?? [];
  const configs = [...new Set(runs.map((x) => x.config))];
  const byConfig = new Map(
    configs.map((c) => {
      const mine = runs.filter((x) => x.config === c).sort((a, b) => a.round - b.round);
      return [c, completedRuns(mine.map((x) => x.run))] as const;
    }),
  );
  const offRate = mean((byConfig.get(off) ?? []).map((x) => x.throughput.value));
  return configs.map((config) => {
    const done = byConfig.get(config)!;
    const rate = mean(done.map((x) => x.throughput.value));
    const cpu = done.map((x) => x.cpu?.worker?.value).filter((v): v is number => v !== undefined);
    return {
      config,
      rounds: done.map((x) => x.throughput.value),
      jobsPerSecond: rate,
      workerCpuMsPerJob: cpu.length ? mean(cpu) : undefined,
      ratioToOff: Number.isFinite(offRate) && offRate > 0 && Number.isFinite(rate) ? rate / offRate : undefined,
    };
  });
}

const WHAT: Record<string, string> = {
  default: 'both off (our defaults)',
  metrics: 'metrics on (PROMETHEUS_BIND_ADDRESS; scraped every 5 s)',
  'tracing-10': 'tracing at 10 % (OTEL_TRACES_SAMPLER=parentbased_traceidratio, ARG 0.1)',
  'metrics-tracing-10': 'metrics and tracing at 10 %',
};

export function observabilitySection(r: BenchResults, table: Table, n: Num): string {
  const costs = observabilityCosts(r);
  const first = r.observability?.[0]?.run;
  const rows = costs.map((c) => [
    `\`${c.config}\``,
    WHAT[c.config] ?? c.config,
    c.rounds.map((x) => n(x, 1)).join(' / '),
    `#${n(c.jobsPerSecond, 1)}`,
    `#${c.ratioToOff === undefined ? '–' : `${n(c.ratioToOff * 100, 0)} %`}`,
    `#${n(c.workerCpuMsPerJob, 1)}`,
  ]);
  const what = first
    ? `${n(first.concurrency)} jobs at once, ${first.mode}, ${first.profile} sandbox, a fresh worker process per config and round, warmed up first; rounds in alternating order. Traces go over OTLP/HTTP to a sink on loopback that accepts and drops them${r.otlpReceived ? ` (it received ${n(r.otlpReceived.requests, 0)} export requests, ${n(r.otlpReceived.bytes / 1024, 0)} KiB)` : ''}.`
    : '';
  return `${what}\n\n${table(['Worker config', 'Observability', 'Jobs/s per round', '#Jobs/s (mean)', '#Against both off', '#Worker CPU ms/job'], rows)}`;
}
