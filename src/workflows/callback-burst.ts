// Callbacks that reach the run in one activation (one workflow task). More than one at once can mean that
// a workflow task which already ran a confirming query for one of them failed (the server refuses to
// close a run while a signal came in meanwhile) and now runs again, maybe on another worker that cannot
// know of that query: the tasks they name then wait a full minimum interval before their next query, and
// a task they report cancelled is not queried again (spec: stop querying a cancelled task), since the
// lost query may have seen it cancelled. The callbacks are signed per run: their word is the service's.

import type { ReviewTaskSummary } from '../contract/index.js';

export class CallbackBurst {
  /** Workflow time of the activation that delivered the last callback (one value per activation). */
  #at = Number.NaN;
  #count = 0;
  #keys: string[] = [];
  readonly #reportedCancelled = new Set<string>();
  readonly #calledBackCancelled = new Set<string>();

  /** Notes a callback naming `key`; returns the keys to space out when this activation holds several. */
  add(key: string, status?: string): string[] {
    const now = Date.now();
    if (now !== this.#at) {
      this.#at = now;
      this.#count = 0;
      this.#keys = [];
    }
    this.#count++;
    if (!this.#keys.includes(key)) this.#keys.push(key);
    if (status === 'cancelled') this.#calledBackCancelled.add(key);
    if (this.#count > 1 && status === 'cancelled') this.#reportedCancelled.add(key);
    return this.#count > 1 ? [...this.#keys] : [];
  }

  /** A burst of callbacks reported the task cancelled: the run takes their word rather than query it. */
  reportedCancelled(key: string): boolean {
    return this.#reportedCancelled.has(key);
  }

  /** Any callback reported the task cancelled (review-confirm.ts takes its word from the patch on). */
  calledBackCancelled(key: string): boolean {
    return this.#calledBackCancelled.has(key);
  }
}

/** The answer a burst of signed callbacks gave for a cancelled task (see callback-burst.ts): no query. */
export function cancelledByCallbacks(taskId: string): ReviewTaskSummary {
  const message = 'reported cancelled by the review service callbacks';
  return {
    taskId,
    status: 'cancelled',
    rawStatus: 'cancelled',
    totalCount: undefined,
    doneCount: undefined,
    items: [],
    error: { message },
    raw: { task_id: taskId, status: 'cancelled', message },
    queries: 0,
    nextQueryAt: Date.now(),
  };
}
