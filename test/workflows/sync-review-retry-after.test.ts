// A sync review submit answered before the review ended, with a Retry-After (spec, Limits: "must be obeyed
// when present, and the retry interval never goes below the minimum query interval"): the first query of
// the task it names waits for that Retry-After from the answer, not only for the minimum interval.
import { describe, expect, it } from 'vitest';
import { AUDIT_RULES, auditRequestLog } from 'temporal-review-video-sandbox';
import { fastTiming, imageJob, withStack, type Stack } from '../support/stack.js';

const RETRY_AFTER_S = 2;
let stack: Stack;
// The sandbox answers a sync submit after 500 ms at most, and every answer about a task still under way
// (that sync answer included) carries Retry-After: 2, much longer than the job's 300 ms interval.
withStack(
  { sandbox: { syncReviewWaitMs: 500, reviewProcessingRetryAfter: String(RETRY_AFTER_S) } },
  (s) => (stack = s),
);

describe('sync review submit answered unfinished with Retry-After', () => {
  it('the first query of its task comes no sooner than the Retry-After after the answer', async () => {
    stack.sandbox.reset();
    const url = 'https://cdn.example.com/people/sync-retry-after.jpg';
    stack.sandbox.setReviewTaskOutcome({ url }, 'completed', 3_000);
    const input = imageJob(url, { timing: fastTiming });
    input.review = { mode: 'sync' };
    const result = await (await stack.start(input)).result();
    expect(result.state).toBe('succeeded');

    const log = stack.sandbox.requests();
    const [submit, ...others] = log.filter((r) => r.operation === 'review.submitSync');
    expect(others).toEqual([]);
    expect(submit).toMatchObject({ status: 200, retryAfter: String(RETRY_AFTER_S) });
    expect(['pending', 'processing']).toContain((submit!.response as { status: string }).status);
    const queries = log.filter((r) => r.operation === 'review.query');
    expect(queries.length).toBeGreaterThanOrEqual(1);
    expect(queries.every((q) => q.taskId === submit!.taskId)).toBe(true);

    const wait = queries[0]!.at - submit!.answeredAt!;
    console.log(
      `sync answer at +${submit!.answeredAt! - submit!.at} ms with Retry-After: ${RETRY_AFTER_S}; first query ${wait} ms after the answer (interval ${fastTiming.reviewMinQueryIntervalMs} ms)`,
    );
    expect(wait).toBeGreaterThanOrEqual(RETRY_AFTER_S * 1_000);
    const violations = auditRequestLog(log, { minQueryIntervalMs: fastTiming.reviewMinQueryIntervalMs });
    expect(violations.filter((v) => v.rule === AUDIT_RULES.retryAfter)).toEqual([]);
    expect(violations).toEqual([]);
  });
});
