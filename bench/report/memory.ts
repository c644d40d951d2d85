// Section 6's reading of one waiting run: what a cached workflow costs and what it is made of, and whether
// the constants our worker sizes its cache with (src/config/worker-cache.ts) still match this run.
import { cacheSizeForBudget, WORKER_MEMORY } from '../../src/config/worker-cache.js';
import type { WaitingResult } from '../results.js';
import { MIN_CACHED } from './targets.js';

type Num = (v: number | undefined, digits?: number) => string;

export function cacheMemoryText(w: WaitingResult, n: Num): string {
  const m = w.perCachedWorkflow;
  if (!m) return '';
  if (m.upToCached < MIN_CACHED)
    return `Too few cached workflows (${m.upToCached}) to tell the memory of one from the warm-up's growth.\n`;
  const heap =
    m.threadHeapUsedKiB !== undefined
      ? ` Of it: the workflow thread's V8 heap ${n(m.threadHeapUsedKiB, 0)} KiB used (${n(m.threadHeapTotalKiB, 0)} KiB committed: V8 keeps room to grow), ` +
        `the main thread's heap ${n(m.mainHeapTotalKiB, 0)} KiB committed (${n(m.mainHeapUsedKiB, 0)} used), external memory (Buffers) ${n(m.externalKiB, 0)} KiB, ` +
        `and ${n(m.nativeKiB, 0)} KiB outside the V8 heaps: the SDK's Rust core (each cached run's state machines and pending activations) and the allocator.`
      : '';
  const idle = w.workerRssIdle.value;
  const drift =
    Math.abs(m.rssKiB - WORKER_MEMORY.perCachedWorkflowKiB) > WORKER_MEMORY.perCachedWorkflowKiB * 0.15 ||
    Math.abs(idle - WORKER_MEMORY.baselineMiB) > WORKER_MEMORY.baselineMiB * 0.15;
  const formula =
    `Our worker sizes its cache as floor((budget − ${WORKER_MEMORY.baselineMiB} MiB) / ${WORKER_MEMORY.perCachedWorkflowKiB} KiB) (src/config/worker-cache.ts): ` +
    `${n(cacheSizeForBudget(WORKER_MEMORY.budgetMiB))} workflows at the default ${WORKER_MEMORY.budgetMiB} MiB budget; with this run's figures ` +
    `(${n(idle, 0)} MiB idle, ${n(m.rssKiB, 0)} KiB per cached workflow) it would be ${n(Math.floor(((WORKER_MEMORY.budgetMiB - idle) * 1024) / m.rssKiB))}` +
    (drift ? ' — **the constants differ from this run by more than 15 %: update them.**' : '.');
  return `**Per cached workflow: ${n(m.rssKiB, 0)} KiB of RSS** (least-squares slope over ${m.points} checkpoints, idle included, while every waiting job was cached, up to ${n(m.upToCached)}).${heap} ${formula}\n`;
}
