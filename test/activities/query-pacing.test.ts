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
  it('a final answer whose quota slot Temporal cannot be told of is still returned, and not queried again', async () => {
    const taskId = await submitted();
    services.sandbox.cancelReviewTask(taskId);
    // No Temporal client in this activity context: the release cannot be sent, the run will send it.
    const slot = { key: 'review@pacing', requestId: 'req-1', sentAt: Date.now() };
    const task = await query({ taskId, minIntervalMs: 100, untilFinal: false, releaseSlotWhenFinal: slot });
    expect(task.status).toBe('cancelled');
    expect(task.slotReleased).toBeUndefined();
    expect(queries()).toHaveLength(1);
  });

  it('waits until notBefore before querying', async () => {
    const taskId = await submitted();
    const notBefore = Date.now() + 700;
    const task = await query({ taskId, minIntervalMs: 100, untilFinal: false, notBefore });
    expect(queries()).toHaveLength(1);
    expect(queries()[0]!.at).toBeGreaterThanOrEqual(notBefore);
    // The run's RemoteTask paces the next query by the Retry-After (2 s), which is longer than the interval.
    expect(task.retryAfterMs).toBe(2_000);
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

  it('an error answer with a longer Retry-After than the run knows: RetryAfterRaised, not retried, with the delay', async () => {
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
    expect(failure.details?.[0]).toEqual({ retryAfterMs: 3_000 });
  });

  it('guardLostAnswer: an attempt after one that vanished does not query (it may have seen cancelled)', async () => {
    const taskId = await submitted();
    const input = { taskId, minIntervalMs: 100, cadenceMs: 300, untilFinal: true, guardLostAnswer: true };
    // Attempt 1 ends by reporting its not-final answer: the heartbeat it leaves lets attempt 2 query.
    const beats: unknown[] = [];
    const first = new MockActivityEnvironment({ attempt: 1 });
    first.on('heartbeat', (d: unknown) => beats.push(d));
    const notFinal = await first
      .run(acts().rtgQueryReviewTask, { ...input, knownRetryAfterMs: 2_000 })
      .catch((e: unknown) => e);
    expect((notFinal as ApplicationFailure).type).toBe('NotFinalYet');
    expect(beats).toEqual([{ networkFailures: 0, reportedBy: 1 }]);
    expect(queries()).toHaveLength(1);
    const second = new MockActivityEnvironment({ attempt: 2, heartbeatDetails: beats[0] });
    await second
      .run(acts().rtgQueryReviewTask, { ...input, knownRetryAfterMs: 0, notBefore: Date.now() })
      .catch(() => undefined);
    expect(queries()).toHaveLength(2);
    // Attempt 3 finds no report of attempt 2 (its worker was lost): QueryAnswerLost, final, no query.
    const third = new MockActivityEnvironment({ attempt: 3, heartbeatDetails: beats[0] });
    const lost = await third.run(acts().rtgQueryReviewTask, input).catch((e: unknown) => e);
    expect((lost as ApplicationFailure).type).toBe('QueryAnswerLost');
    expect((lost as ApplicationFailure).nonRetryable).toBe(true);
    expect(queries()).toHaveLength(2);
  });

  it("a network failure: the backoff goes on from the run's count; a poll the run may stop ends to report it (issue 36, 10b)", async () => {
    const taskId = await submitted();
    services.sandbox.addFault({ operation: 'review.query', times: 2, fault: { type: 'reset' } });
    // The run counts two failures already: this one is the third, 4 s.
    const third = await query({ taskId, minIntervalMs: 100, untilFinal: true, networkFailures: 2 }).catch(
      (e: unknown) => e,
    );
    expect((third as ApplicationFailure).nonRetryable).toBe(false);
    expect((third as ApplicationFailure).nextRetryDelay).toBe(4_000);
    const reported = await query({
      taskId,
      minIntervalMs: 100,
      untilFinal: true,
      knownRetryAfterMs: 0,
      reportNetworkFailures: true,
    }).catch((e: unknown) => e);
    expect((reported as ApplicationFailure).type).toBe('TransientServiceError');
    expect((reported as ApplicationFailure).nonRetryable).toBe(true);
  });
});
