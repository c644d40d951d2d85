// The sticky cache our worker runs with: what the memory budget holds beyond the idle worker, at the memory
// per cached workflow the benchmark measured; an explicit WORKER_MAX_CACHED_WORKFLOWS wins.
import { describe, expect, it } from 'vitest';
import { cacheSizeForBudget, WORKER_MEMORY, workerCacheSize } from '../../src/config/worker-cache.js';

describe('worker cache from a memory budget', () => {
  it('is floor((budget − baseline) / per cached workflow)', () => {
    const m = { baselineMiB: 300, perCachedWorkflowKiB: 220 };
    expect(cacheSizeForBudget(448, m)).toBe(Math.floor((148 * 1024) / 220)); // 688
    expect(cacheSizeForBudget(1_024, m)).toBe(3_369);
    // Never below the SDK's smallest cache.
    expect(cacheSizeForBudget(300, m)).toBe(2);
  });

  it('keeps RSS at the default budget within the 512 MiB of issue 15, by the measured figures', () => {
    const cache = cacheSizeForBudget(WORKER_MEMORY.budgetMiB);
    expect(WORKER_MEMORY.budgetMiB).toBeLessThanOrEqual(512);
    expect(WORKER_MEMORY.baselineMiB + (cache * WORKER_MEMORY.perCachedWorkflowKiB) / 1024).toBeLessThanOrEqual(
      WORKER_MEMORY.budgetMiB,
    );
  });

  it('reads WORKER_MEMORY_BUDGET_MIB, and WORKER_MAX_CACHED_WORKFLOWS overrides it', () => {
    expect(workerCacheSize({})).toEqual({
      maxCachedWorkflows: cacheSizeForBudget(WORKER_MEMORY.budgetMiB),
      from: 'WORKER_MEMORY_BUDGET_MIB',
      budgetMiB: WORKER_MEMORY.budgetMiB,
    });
    expect(workerCacheSize({ WORKER_MEMORY_BUDGET_MIB: '1024' }).maxCachedWorkflows).toBe(cacheSizeForBudget(1_024));
    expect(workerCacheSize({ WORKER_MEMORY_BUDGET_MIB: '1024', WORKER_MAX_CACHED_WORKFLOWS: '50' })).toEqual({
      maxCachedWorkflows: 50,
      from: 'WORKER_MAX_CACHED_WORKFLOWS',
      budgetMiB: 1_024,
    });
    // An empty variable is unset (compose passes `${VAR:-}`).
    expect(workerCacheSize({ WORKER_MEMORY_BUDGET_MIB: '' }).from).toBe('WORKER_MEMORY_BUDGET_MIB');
  });

  it('refuses a budget the idle worker already fills, and a value that is not a whole number of MiB', () => {
    expect(() => workerCacheSize({ WORKER_MEMORY_BUDGET_MIB: String(WORKER_MEMORY.baselineMiB) })).toThrow(
      /WORKER_MEMORY_BUDGET_MIB must be at least/,
    );
    expect(() => workerCacheSize({ WORKER_MEMORY_BUDGET_MIB: 'lots' })).toThrow(/WORKER_MEMORY_BUDGET_MIB/);
    // The explicit size needs no budget check.
    expect(
      workerCacheSize({ WORKER_MEMORY_BUDGET_MIB: '100', WORKER_MAX_CACHED_WORKFLOWS: '10' }).maxCachedWorkflows,
    ).toBe(10);
  });
});
