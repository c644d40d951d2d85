// The driver of a RemoteTask (src/workflows/task-waiter.ts) on its query path, without a server: how a
// query's failure, as Temporal reports it to the workflow, becomes an event of the task.
import { ActivityFailure, RetryState } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { transientServiceError } from '../../src/contract/index.js';
import { isFinalReviewStatus, WORKING_REVIEW_STATUSES } from '../../src/model/review/task.js';
import { RemoteTask } from '../../src/workflows/remote-task.js';
import { waitUntilFinal } from '../../src/workflows/task-waiter.js';

const rules = {
  minIntervalMs: 300,
  pollIntervalMs: 300,
  fallbackMs: 60_000,
  callbacks: true,
  cancelledStopsQueries: true,
  isFinal: isFinalReviewStatus,
  isWorking: (s: string) => WORKING_REVIEW_STATUSES.has(s),
};

/** What the workflow sees when every attempt of a query activity failed: the last attempt's failure. */
function lastAttemptFailed(evidence: { status: number; retryAfterMs?: number }): ActivityFailure {
  const cause = transientServiceError(
    `HTTP ${evidence.status}`,
    {
      operation: 'review.query',
      kind: 'http',
      ambiguous: false,
      body: undefined,
      retryAfterMs: undefined,
      ...evidence,
    },
    evidence.retryAfterMs,
  );
  return new ActivityFailure(
    'activity failed',
    'rtgQueryReviewTask',
    '1',
    RetryState.MAXIMUM_ATTEMPTS_REACHED,
    'w',
    cause,
  );
}

/** One confirming query of a task that a callback woke, failing with `err`; the wait ends at its time-out. */
async function confirmFailing(err: unknown): Promise<{ task: RemoteTask; failedAt: number }> {
  const task = new RemoteTask(rules);
  task.apply({ type: 'submitted', taskId: 't1', at: Date.now() - 1_000 });
  task.apply({ type: 'callback', taskId: 't1', status: 'completed' });
  let failedAt = 0;
  const fail = async () => {
    await new Promise((r) => setTimeout(r, 30));
    failedAt = Date.now();
    throw err;
  };
  await waitUntilFinal(
    task,
    { confirm: fail, poll: fail, statusOf: () => '', retryAfterOf: () => undefined, observe: () => undefined },
    Date.now() + 20,
  );
  return { task, failedAt };
}

describe('waitUntilFinal: a confirming query whose attempts all failed', () => {
  it('keeps the Retry-After its last attempt was refused with, and does not count it as a network failure (issue 36, 1)', async () => {
    const { task, failedAt } = await confirmFailing(lastAttemptFailed({ status: 429, retryAfterMs: 2_000 }));
    expect(task.pacing.notBefore).toBeGreaterThanOrEqual(failedAt + 2_000);
    expect(task.pacing.networkFailures).toBe(0);
  });

  it('counts one without a Retry-After for the 1/2/4 s backoff', async () => {
    const { task, failedAt } = await confirmFailing(lastAttemptFailed({ status: 503 }));
    expect(task.pacing.networkFailures).toBe(1);
    expect(task.pacing.notBefore).toBeGreaterThanOrEqual(failedAt + 1_000);
  });
});
