// This process's own record of when it may next query each task, on top of the run's (`notBefore`). A
// local activity (the confirming query) runs again when its workflow task is retried, for instance when
// the server refused the task's completion because a signal came in meanwhile, and it then carries the
// pacing it was given the first time, from before its own first query. The retry runs on this worker
// (the workflow is cached here), so remembering the last query here keeps the interval and Retry-After.
const MAX_TASKS = 10_000;
const nextAllowedAt = new Map<string, number>();

/** When this process may next query the task (epoch ms; 0 when it has not queried it). */
export function nextQueryAllowedHere(key: string): number {
  return nextAllowedAt.get(key) ?? 0;
}

/** Records a query of the task made by this process, and when the next one may go. */
export function recordQueryHere(key: string, nextQueryAt: number): void {
  const at = Math.max(nextAllowedAt.get(key) ?? 0, nextQueryAt);
  nextAllowedAt.delete(key); // re-inserted last: the map's order is the order of last use
  nextAllowedAt.set(key, at);
  if (nextAllowedAt.size > MAX_TASKS) nextAllowedAt.delete(nextAllowedAt.keys().next().value as string);
}
