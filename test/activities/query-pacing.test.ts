// The review query activity in an activity context (MockActivityEnvironment) against the sandbox over
// HTTP: it never queries before the run's `notBefore`, obeys a Retry-After on a 200 that is still
// processing, and ends early to tell the run of a Retry-After longer than the one it knows.
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { describe, expect, it } from 'vitest';
import { createActivities, type PollInput, type ReviewTaskSummary } from '../../src/activities/index.js';
import { withSandbox } from '../support/sandbox.js';

// Every not-final review answer says Retry-After: 2.
const services = withSandbox({ reviewDurationMs: 60_000, reviewProcessingRetryAfter: '2' });
// Built on use: the clients exist once the sandbox has started.
const acts = () => createActivities(services);

async function submitted(): Promise<string> {
  return (await services.review.submitAsync({ images: ['https://cdn.example.com/pacing/a.jpg'] })).taskId;
}

/** Runs the query activity in a mock activity context. */
function query(input: PollInput): Promise<ReviewTaskSummary> {
  return new MockActivityEnvironment().run(acts().rtgQueryReviewTask, input) as Promise<ReviewTaskSummary>;
}

const queries = () => services.sandbox.requests().filter((r) => r.operation === 'review.query');

describe('rtgQueryReviewTask pacing', () => {
  it('waits until notBefore before querying', async () => {
    const taskId = await submitted();
    const notBefore = Date.now() + 700;
    const task = await query({ taskId, minIntervalMs: 100, untilFinal: false, notBefore });
    expect(queries()).toHaveLength(1);
    expect(queries()[0]!.at).toBeGreaterThanOrEqual(notBefore);
    // The next query is due after the Retry-After (2 s), which is longer than the interval.
    expect(task.retryAfterMs).toBe(2_000);
    expect(task.nextQueryAt).toBeGreaterThanOrEqual(queries()[0]!.at + 2_000);
  });

  it('a notBefore far ahead is left to the retry timer: no query, a retry delay to that time', async () => {
    const taskId = await submitted();
    const err = await query({ taskId, minIntervalMs: 100, untilFinal: true, notBefore: Date.now() + 20_000 }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ApplicationFailure);
    expect((err as ApplicationFailure).nextRetryDelay).toBeGreaterThan(15_000);
    expect(queries()).toHaveLength(0);
  });

  it('polling: a processing answer with Retry-After delays the next attempt by it, never below the interval', async () => {
    const taskId = await submitted();
    const known = { knownRetryAfterMs: 2_000 };
    const short = await query({ taskId, minIntervalMs: 100, cadenceMs: 300, untilFinal: true, ...known }).catch(
      (e: unknown) => e,
    );
    expect((short as ApplicationFailure).type).toBe('NotFinalYet');
    expect((short as ApplicationFailure).nextRetryDelay).toBe(2_000);
    const long = await query({ taskId, minIntervalMs: 5_000, cadenceMs: 300, untilFinal: true, ...known }).catch(
      (e: unknown) => e,
    );
    expect((long as ApplicationFailure).nextRetryDelay).toBe(5_000);
  });

  it('polling: an answer asking for a longer Retry-After than the run knows ends the poll with it', async () => {
    const taskId = await submitted();
    const task = await query({ taskId, minIntervalMs: 100, cadenceMs: 300, untilFinal: true, knownRetryAfterMs: 0 });
    expect(task.status).not.toBe('completed');
    expect(task.retryAfterMs).toBe(2_000);
  });

  it('an error answer with a longer Retry-After than the run knows: RetryAfterRaised, not retried, with when to query next', async () => {
    const taskId = await submitted();
    services.sandbox.addFault({
      operation: 'review.query',
      times: 1,
      fault: { type: 'status', status: 429, retryAfter: '3' },
    });
    const err = await query({ taskId, minIntervalMs: 100, untilFinal: true, knownRetryAfterMs: 2_000 }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ApplicationFailure);
    const failure = err as ApplicationFailure;
    expect(failure.type).toBe('RetryAfterRaised');
    expect(failure.nonRetryable).toBe(true);
    expect(failure.details?.[0]).toMatchObject({ retryAfterMs: 3_000, nextQueryAt: expect.any(Number) });
  });

  it('sent again with the pacing of its first run (a local activity re-run with its workflow task): waits for the Retry-After of the first query', async () => {
    const taskId = await submitted();
    const pacing = { taskId, minIntervalMs: 100, untilFinal: false, knownRetryAfterMs: 2_000 };
    await query(pacing);
    await query(pacing); // the same input, as a retried workflow task gives it
    const [first, second] = queries();
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(2_000);
  });
});
