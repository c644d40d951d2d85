// Issue 36, item 10 (b), suspected: a poll stopped for a callback forgets its network-failure backoff step.
// A job waiting for callbacks polls at the fallback cadence; its queries meet three network failures (the
// next query is due 4 s after the third); the review's callback comes inside that wait, the poll is
// stopped for a confirming query, and that query must still keep the 4 s step.
import { describe, expect, it } from 'vitest';
import { fastTiming, imageJob, withStack, type Stack } from '../support/stack.js';

let stack: Stack;
withStack({}, (s) => (stack = s));

describe('a poll stopped for a callback', () => {
  it('keeps its network-failure backoff step for the confirming query', async () => {
    stack.sandbox.reset();
    const url = 'https://cdn.example.com/net/stopped.jpg';
    // Submit at 0, polls from 1 s (fallback): failures at ~1, ~2, ~4 s; the callback at ~5.5 s, inside the 4 s step.
    stack.sandbox.setReviewTaskOutcome({ url }, 'completed', 5_500);
    stack.sandbox.addFault({ operation: 'review.query', times: 3, fault: { type: 'reset' } });
    const timing = { ...fastTiming, callbackFallbackPollMs: 1_000 };
    const result = await (await stack.start(imageJob(url, { callbacks: true, timing }))).result();
    expect(result.state).toBe('succeeded');
    const queries = stack.sandbox.requests().filter((r) => r.operation === 'review.query');
    expect(queries.map((q) => q.fault ?? q.status)).toEqual(['reset', 'reset', 'reset', 200]);
    const callbackAt = stack.sandbox.callbacks().find((c) => c.kind === 'review')!.at;
    // The callback came inside the third step, so the test looks at the case it means to.
    expect(callbackAt).toBeLessThan(queries[2]!.at + 4_000);
    expect(queries[3]!.at - queries[2]!.at).toBeGreaterThanOrEqual(4_000 - 1);
  });
});
