// The cost of metrics and tracing (issue 16), from the observability phase: the same burst on worker
// configs that differ only in them, run in rounds side by side; jobs per second and worker CPU per job
// against the config with both off, measured in the same run (BENCHMARKS.md states them).
import type { BenchResults, RunResult } from '../results.js';

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
