// A review query whose answer was lost (its attempt timed out: it may have seen `cancelled`) is never
// followed by another query until the task's own callback says it ended otherwise (issue 36, item 9;
// docs/rules.md, "After a lost answer"). The attempt is lost by a query that hangs past the job's
// callTimeoutMs, while the client's own HTTP time-out is longer. The call time-out leaves a loaded machine
// room to answer the confirming query in time (a 1 s one lost it too, and counted a query more).
import { describe, expect, it } from 'vitest';
import { auditRequestLog } from 'temporal-review-video-sandbox';
import { failureOf } from '../support/failures.js';
import { countOps, fastTiming, imageJob, withStack, type Stack } from '../support/stack.js';

const timing = { ...fastTiming, callTimeoutMs: 3_000, callbackFallbackPollMs: 1_000, reviewTimeoutMs: 12_000 };
const hangFirstQuery = (stack: Stack) =>
  stack.sandbox.addFault({ operation: 'review.query', times: 1, fault: { type: 'hang', ms: 6_000 } });

describe('a worker without a callback address', () => {
  let stack: Stack;
  withStack({ callbackAddress: false, httpTimeoutMs: 10_000 }, (s) => (stack = s));

  it('nothing can tell what the lost answer was: ReviewFailed at once, its state unknown, no second query', async () => {
    stack.sandbox.reset();
    hangFirstQuery(stack);
    const failure = await failureOf(await stack.start(imageJob(undefined, { timing })));
    expect(failure.type).toBe('ReviewFailed');
    expect(failure.message).toContain('state is unknown');
    expect(countOps(stack.sandbox)['review.query']).toBe(1);
    expect(countOps(stack.sandbox)['video.create'] ?? 0).toBe(0);
  });
});

describe('a worker with a callback address', () => {
  let stack: Stack;
  withStack({ httpTimeoutMs: 10_000 }, (s) => (stack = s));

  it("the task's callback reports completed: one confirming query, the job goes on", async () => {
    stack.sandbox.reset();
    const url = 'https://cdn.example.com/lost/slow.jpg';
    stack.sandbox.setReviewTaskOutcome({ url }, 'completed', 5_000);
    hangFirstQuery(stack);
    const result = await (await stack.start(imageJob(url, { callbacks: false, timing }))).result();
    expect(result.state).toBe('succeeded');
    expect(countOps(stack.sandbox)['review.query']).toBe(2);
    expect(auditRequestLog(stack.sandbox.requests(), { minQueryIntervalMs: timing.reviewMinQueryIntervalMs })).toEqual(
      [],
    );
  });

  it('an ambiguous submit, the task its callback names reported failed, the read of it lost: read again, ReviewFailed (soak seed 1742482515, j0458)', async () => {
    stack.sandbox.reset();
    const url = 'https://cdn.example.com/lost/named-failed.jpg';
    stack.sandbox.setReviewTaskOutcome({ url }, 'failed', 500);
    stack.sandbox.addFault({
      operation: 'review.submitAsync',
      times: 1,
      fault: { type: 'status', status: 500, commit: true },
    });
    hangFirstQuery(stack);
    const failure = await failureOf(await stack.start(imageJob(url, { timing })));
    // Its own callback said `failed` before the answer was lost: that answer was not `cancelled`.
    expect(failure.type).toBe('ReviewFailed');
    expect(countOps(stack.sandbox)['review.submitAsync']).toBe(1);
    expect(countOps(stack.sandbox)['review.query']).toBe(2);
    expect(auditRequestLog(stack.sandbox.requests(), { minQueryIntervalMs: timing.reviewMinQueryIntervalMs })).toEqual(
      [],
    );
  });

  it('no callback comes: no fallback poll after the lost answer, the review times out', async () => {
    stack.sandbox.reset();
    const url = 'https://cdn.example.com/lost/no-callback.jpg';
    stack.sandbox.setReviewTaskOutcome({ url }, 'completed', 2_000);
    stack.sandbox.setCallbackFault({ kind: 'review', mode: 'drop', times: 5 });
    hangFirstQuery(stack);
    const failure = await failureOf(await stack.start(imageJob(url, { callbacks: false, timing })));
    expect(failure.type).toBe('ReviewTimedOut');
    expect(countOps(stack.sandbox)['review.query']).toBe(1);
  });
});
