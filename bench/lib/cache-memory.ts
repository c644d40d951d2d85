// What one cached workflow costs the worker, and what that memory is made of: the least-squares slope of
// each reading against the number of cached workflows, over the checkpoints taken before the sticky cache
// filled (every waiting job still cached, nothing evicted yet), from the idle worker on. Past that point
// evicted workflows leave garbage behind until V8 collects it, which says nothing about a cached one.
import { mean } from './stats.js';

export interface MemoryPoint {
  waitingJobs: number;
  cachedWorkflows: number;
  rssMiB: number;
  /** Absent in results from before the heaps were read. */
  heap?: {
    mainUsedMiB: number;
    mainTotalMiB: number;
    threadUsedMiB: number;
    threadTotalMiB: number;
    externalMiB: number;
  };
}

export interface CachedWorkflowMemory {
  /** Checkpoints used (the idle point included), and the most cached workflows among them. */
  points: number;
  upToCached: number;
  /** KiB per cached workflow. */
  rssKiB: number;
  /** V8 heap of the workflow thread(s): used (live objects and not yet collected garbage) and committed. */
  threadHeapUsedKiB?: number;
  threadHeapTotalKiB?: number;
  mainHeapUsedKiB?: number;
  mainHeapTotalKiB?: number;
  externalKiB?: number;
  /** RSS less the V8 heaps committed and external memory: the SDK's Rust core and the allocator. */
  nativeKiB?: number;
}

function slope(points: Array<{ x: number; y: number }>): number {
  const mx = mean(points.map((p) => p.x));
  const my = mean(points.map((p) => p.y));
  const den = points.reduce((a, p) => a + (p.x - mx) ** 2, 0);
  return den > 0 ? points.reduce((a, p) => a + (p.x - mx) * (p.y - my), 0) / den : NaN;
}

const kib = (v: number) => Math.round(v * 1024 * 10) / 10;

/** `idle`: the reading before the first job; workflows already cached then (an earlier scenario's) are not counted. */
export function perCachedWorkflow(idle: MemoryPoint, checkpoints: MemoryPoint[]): CachedWorkflowMemory | undefined {
  const added = (c: MemoryPoint) => c.cachedWorkflows - idle.cachedWorkflows;
  // Every waiting job cached (a few in flight may be missing from the count).
  let used = checkpoints.filter((c) => added(c) > 0 && added(c) >= c.waitingJobs * 0.98);
  // A cache smaller than the first chunk: the first full-cache checkpoint is the best there is.
  if (used.length === 0) used = checkpoints.filter((c) => added(c) > 0).slice(0, 1);
  if (used.length === 0) return undefined;
  const points = [idle, ...used].map((p) => ({ ...p, cachedWorkflows: added(p) }));
  const per = (y: (p: MemoryPoint) => number | undefined) => {
    const xs = points.map((p) => ({ x: p.cachedWorkflows, y: y(p) }));
    return xs.every((p) => p.y !== undefined) ? kib(slope(xs as Array<{ x: number; y: number }>)) : undefined;
  };
  const rssKiB = per((p) => p.rssMiB)!;
  const threadTotal = per((p) => p.heap?.threadTotalMiB);
  const mainTotal = per((p) => p.heap?.mainTotalMiB);
  const external = per((p) => p.heap?.externalMiB);
  return {
    points: points.length,
    upToCached: Math.max(...used.map(added)),
    rssKiB,
    threadHeapUsedKiB: per((p) => p.heap?.threadUsedMiB),
    threadHeapTotalKiB: threadTotal,
    mainHeapUsedKiB: per((p) => p.heap?.mainUsedMiB),
    mainHeapTotalKiB: mainTotal,
    externalKiB: external,
    nativeKiB:
      threadTotal !== undefined && mainTotal !== undefined && external !== undefined
        ? Math.round((rssKiB - threadTotal - mainTotal - external) * 10) / 10
        : undefined,
  };
}
