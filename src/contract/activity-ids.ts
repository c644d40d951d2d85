// Activity ids the workflow sets and the callback receiver reads (src/callbacks/forwarding.ts).

/**
 * The id of a poll of a task in a polling job (history-v2, src/workflows/history-version.ts): the
 * receiver drops a callback of a task the run is polling, since the poll sees the same state.
 */
export function pollActivityId(kind: 'review' | 'video', taskId: string): string {
  return `poll:${kind}:${taskId}`;
}
