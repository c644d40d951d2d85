// The synchronous review submit (`review.mode: "sync"`): it blocks until the review ends and has no
// callback, so it is sent at most once: its HTTP deadline is the review's time-out (not the short
// per-request one), an answer that may have been received is never retried, and an unfinished answer
// that names its task is followed by querying that task.
import { describe, expect, it } from 'vitest';
import { failureOf } from '../support/failures.js';
import { countOps, fastTiming, imageJob, withStack, type Stack } from '../support/stack.js';

let stack: Stack;
// Client time-out 1 s; the sandbox holds a sync submit until the review ends, or 1.5 s at most.
withStack({ httpTimeoutMs: 1_000, sandbox: { syncReviewWaitMs: 1_500 } }, (s) => (stack = s));

const syncJob = (url?: string, extra: Parameters<typeof imageJob>[1] = {}) => {
  const input = imageJob(url, extra);
  input.review = { mode: 'sync' };
  return input;
};
const syncSubmits = () => stack.sandbox.requests().filter((r) => r.operation === 'review.submitSync');

describe('sync review submit', () => {
  it('a review longer than the per-request time-out is waited for: one call, one review task', async () => {
    stack.sandbox.reset();
    const url = 'https://cdn.example.com/people/sync-slow.jpg';
    stack.sandbox.setReviewTaskOutcome({ url }, 'completed', 1_300);
    const result = await (await stack.start(syncJob(url))).result();
    expect(result.state).toBe('succeeded');
    expect(syncSubmits()).toHaveLength(1);
    expect(stack.sandbox.reviewTasks()).toHaveLength(1);
  });

  it('an unfinished answer that names its task: the task is queried like an async one, no second submit', async () => {
    stack.sandbox.reset();
    const url = 'https://cdn.example.com/people/sync-unfinished.jpg';
    stack.sandbox.setReviewTaskOutcome({ url }, 'completed', 3_000);
    const result = await (await stack.start(syncJob(url))).result();
    expect(result.state).toBe('succeeded');
    expect(syncSubmits()).toHaveLength(1);
    const [task] = stack.sandbox.reviewTasks();
    expect(result.reviewTaskIds).toEqual([task!.taskId]);
    const queries = stack.sandbox.requests().filter((r) => r.operation === 'review.query');
    expect(queries.length).toBeGreaterThanOrEqual(1);
    expect(queries.every((q) => q.path.endsWith(task!.taskId))).toBe(true);
  });

  it('a 500 after the submit was received is never retried: SubmitUnconfirmed, one submit', async () => {
    stack.sandbox.reset();
    const url = 'https://cdn.example.com/people/sync-500.jpg';
    stack.sandbox.addFault({
      operation: 'review.submitSync',
      times: 1,
      fault: { type: 'status', status: 500, commit: true },
    });
    const failure = await failureOf(await stack.start(syncJob(url)));
    expect(failure.type).toBe('SubmitUnconfirmed');
    expect(failure.details?.[0]).toMatchObject({ stage: 'reviewing', urls: [url], callbackSent: false });
    expect(syncSubmits()).toHaveLength(1);
    expect(countOps(stack.sandbox)['video.create'] ?? 0).toBe(0);
  });

  it('a 503 with Retry-After (not received) is retried after the delay', async () => {
    stack.sandbox.reset();
    stack.sandbox.addFault({
      operation: 'review.submitSync',
      times: 1,
      fault: { type: 'status', status: 503, retryAfter: '1' },
    });
    const result = await (await stack.start(syncJob())).result();
    expect(result.state).toBe('succeeded');
    const sent = syncSubmits();
    expect(sent).toHaveLength(2);
    expect(sent[1]!.at - sent[0]!.at).toBeGreaterThanOrEqual(1_000 - 1);
  });

  it('opted in (resubmitOnAmbiguity): an ambiguous sync submit is sent again', async () => {
    stack.sandbox.reset();
    stack.sandbox.addFault({ operation: 'review.submitSync', times: 1, fault: { type: 'status', status: 500 } });
    const result = await (
      await stack.start(syncJob(undefined, { resubmitOnAmbiguity: true, timing: fastTiming }))
    ).result();
    expect(result.state).toBe('succeeded');
    expect(syncSubmits()).toHaveLength(2);
  });
});
