// Audit rule for the spec's backoff of review queries (Limits: "Backoff for query network failures: 1 s,
// 2 s, 4 s"): after the n-th failed query of a task in a row, the next query of that task waits at least
// 1 s, 2 s, then 4 s (and 4 s from then on). A failed query is one whose answer the client could not use
// and that carried no Retry-After it saw: no answer (a reset, or its time-out), a 429 or a 5xx. A
// Retry-After rules the next query instead (review.retry-after), and any other answer ends the run of
// failures. The wait counts from when the client can have learnt of the failure: the answer for one it
// saw, the request for one it never saw (a reset, or its time-out, come later), so a client that waited
// its step is never flagged.
import type { RequestLogEntry, Violation } from './types.js';

export const BACKOFF_RULE = 'review.backoff';

const STEPS_MS = [1_000, 2_000, 4_000] as const;

export function backoffViolations(entries: RequestLogEntry[]): Violation[] {
  const out: Violation[] = [];
  /** Review task id -> its failed queries in a row, and the last one. */
  const failures = new Map<string, { count: number; learntAt: number; seq: number }>();
  for (const e of [...entries].sort((a, b) => a.seq - b.seq)) {
    if (e.operation !== 'review.query' || e.taskId === undefined) continue;
    const prior = failures.get(e.taskId);
    if (prior) {
      const step = STEPS_MS[Math.min(prior.count, STEPS_MS.length) - 1]!;
      const waited = e.at - prior.learntAt;
      if (waited < step) {
        out.push({
          rule: BACKOFF_RULE,
          seq: e.seq,
          detail: `query of review task ${e.taskId} ${waited} ms after failed query #${prior.seq} (${prior.count} in a row; back off at least ${step} ms)`,
        });
      }
    }
    if (failedWithoutRetryAfter(e)) {
      failures.set(e.taskId, { count: (prior?.count ?? 0) + 1, learntAt: learntAt(e), seq: e.seq });
    } else failures.delete(e.taskId);
  }
  return out;
}

function unseen(e: RequestLogEntry): boolean {
  return e.clientGone === true || e.status === 0;
}

function failedWithoutRetryAfter(e: RequestLogEntry): boolean {
  if (unseen(e)) return true;
  return (e.status === 429 || e.status >= 500) && e.retryAfter === undefined;
}

function learntAt(e: RequestLogEntry): number {
  return unseen(e) ? e.at : (e.answeredAt ?? e.at);
}
