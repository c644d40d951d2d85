// The cost of metrics and tracing as BENCHMARKS.md states it: jobs/s per config averaged over the rounds that
// completed, and each config against the one with both off, from the same run.
import { describe, expect, it } from 'vitest';
import { observabilityCosts } from '../lib/observability-cost.js';
import { fig, type BenchResults } from '../results.js';
import { benchRun } from './fixtures.js';

const round = (config: string, n: number, jobsPerSecond: number, cpuMs: number, timedOut = false) => ({
  config,
  def: { options: {}, bundle: 'package' as const },
  round: n,
  run: benchRun({
    throughput: fig(jobsPerSecond, 'jobs/s'),
    cpu: { worker: fig(cpuMs, 'ms/job') },
    timedOut,
  }),
});

const results = (observability: NonNullable<BenchResults['observability']>) =>
  ({ mainWorkerConfig: 'default', observability, otlpReceived: { requests: 12, bytes: 40_960 } }) as BenchResults;

describe('cost of metrics and tracing', () => {
  const r = results([
    round('default', 1, 20, 10),
    round('metrics', 1, 18, 11),
    round('tracing-10', 1, 15, 14),
    round('tracing-10', 2, 17, 12),
    round('metrics', 2, 19, 12),
    round('default', 2, 22, 9),
  ]);

  it('averages each config over its rounds and compares it with both off', () => {
    const costs = observabilityCosts(r);
    expect(costs.map((c) => c.config)).toEqual(['default', 'metrics', 'tracing-10']);
    const byConfig = Object.fromEntries(costs.map((c) => [c.config, c]));
    expect(byConfig.default!.jobsPerSecond).toBe(21);
    expect(byConfig.default!.ratioToOff).toBe(1);
    expect(byConfig.metrics!.rounds).toEqual([18, 19]);
    expect(byConfig.metrics!.ratioToOff).toBeCloseTo(18.5 / 21, 10);
    expect(byConfig['tracing-10']!.workerCpuMsPerJob).toBe(13);
  });

  it('leaves a round that timed out out of the mean', () => {
    const costs = observabilityCosts(results([round('default', 1, 20, 10), round('metrics', 1, 2, 50, true)]));
    expect(costs[1]!.rounds).toEqual([]);
    expect(costs[1]!.ratioToOff).toBeUndefined();
  });
});
