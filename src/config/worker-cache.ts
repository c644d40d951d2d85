// The worker's sticky cache, sized from a memory budget instead of the SDK's default (which follows the V8
// heap limit: 2,310 workflows on a 4 GiB heap, and 904 MiB of RSS with 5,000 jobs waiting in the run before
// issue 15). A waiting job costs memory only while its workflow is cached; an evicted one is replayed from
// its history when its callback or poll wakes it. So the cache is what the budget holds beyond the idle worker:
//   maxCachedWorkflows = floor((WORKER_MEMORY_BUDGET_MIB − baseline) / memory per cached workflow)
// WORKER_MAX_CACHED_WORKFLOWS, when set, wins.
import { ConfigError, parse } from './env.js';
import { workerTuningSchema } from './worker.js';

/**
 * Measured by `npm run bench`, scenario 6 (BENCHMARKS.md, "Worker memory with many jobs waiting";
 * bench/lib/cache-memory.ts says how): the idle worker's RSS (296–307 MiB), and the RSS one cached
 * ReviewThenGenerate run adds while nothing is evicted (199–236 KiB; history-v2, 2026-11-23, default V8 heap).
 * The default budget leaves 64 MiB under the 512 MiB of issue 15 for what evicted runs leave until V8
 * collects it; bench/test/benchmarks-page.test.ts fails when the run BENCHMARKS.md names is more than 15 %
 * away from these constants.
 */
export const WORKER_MEMORY = {
  budgetMiB: 448,
  baselineMiB: 300,
  perCachedWorkflowKiB: 220,
} as const;

/** The formula above; at least 2, the SDK's smallest cache. */
export function cacheSizeForBudget(
  budgetMiB: number,
  memory: { baselineMiB: number; perCachedWorkflowKiB: number } = WORKER_MEMORY,
): number {
  return Math.max(2, Math.floor(((budgetMiB - memory.baselineMiB) * 1024) / memory.perCachedWorkflowKiB));
}

export interface WorkerCacheSize {
  maxCachedWorkflows: number;
  /** Which variable decided it (the worker prints it at start). */
  from: 'WORKER_MAX_CACHED_WORKFLOWS' | 'WORKER_MEMORY_BUDGET_MIB';
  budgetMiB: number;
}

export function workerCacheSize(env: Record<string, string | undefined> = process.env): WorkerCacheSize {
  const c = parse(workerTuningSchema, env);
  const budgetMiB = c.WORKER_MEMORY_BUDGET_MIB ?? WORKER_MEMORY.budgetMiB;
  if (c.WORKER_MAX_CACHED_WORKFLOWS !== undefined)
    return { maxCachedWorkflows: c.WORKER_MAX_CACHED_WORKFLOWS, from: 'WORKER_MAX_CACHED_WORKFLOWS', budgetMiB };
  // A budget the idle worker already fills would leave a cache of 2: say so instead.
  if (budgetMiB < WORKER_MEMORY.baselineMiB + 32)
    throw new ConfigError(
      `invalid configuration: WORKER_MEMORY_BUDGET_MIB must be at least ${WORKER_MEMORY.baselineMiB + 32} (the idle worker holds about ${WORKER_MEMORY.baselineMiB} MiB), or set WORKER_MAX_CACHED_WORKFLOWS`,
    );
  return { maxCachedWorkflows: cacheSizeForBudget(budgetMiB), from: 'WORKER_MEMORY_BUDGET_MIB', budgetMiB };
}
