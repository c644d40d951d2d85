// A worker without a callback address (no CALLBACK_PUBLIC_URL): polling only. A job that asks for
// callbacks (the default) must poll at its own interval from the start, not wait for callbacks that
// cannot come; and an ambiguous submit or create, which no callback can confirm, fails SubmitUnconfirmed
// at once unless the job opted in to resubmitting.
import { describe, expect, it } from 'vitest';
import { progressQuery } from '../../src/job/definitions.js';
import { failureOf } from '../support/failures.js';
import { countOps, fastTiming, imageJob, withStack, type Stack } from '../support/stack.js';

let stack: Stack;
withStack({ callbackAddress: false, httpTimeoutMs: 1_000 }, (s) => (stack = s));

const ops = (operation: string) => stack.sandbox.requests().filter((r) => r.operation === operation);

describe('a worker without a callback address', () => {
  it('a job with callbacks on polls each stage at its own interval from the start, and sends no callback_url', async () => {
    stack.sandbox.reset();
    // The fallback wait is longer than the test may run: a job waiting for callbacks could not finish here.
    const timing = { ...fastTiming, callbackFallbackPollMs: 3_600_000 };
    const handle = await stack.start(imageJob(undefined, { callbacks: true, timing }));
    const result = await handle.result();
    expect(result.state).toBe('succeeded');

    // Each stage polled its task from its submit/create on, and never waited for the fallback (the job's
    // end proves it). The sandbox's log, repeats collapsed: submit, its queries, create, its queries.
    const steps = stack.sandbox
      .requests()
      .map((r) => r.operation)
      .filter((op, i, all) => op !== all[i - 1]);
    expect(steps).toEqual(['review.submitAsync', 'review.query', 'video.create', 'video.get']);
    for (const r of [...ops('review.submitAsync'), ...ops('video.create')])
      expect(JSON.stringify(r.body)).not.toContain('callback_url');
    expect(stack.sandbox.callbacks()).toHaveLength(0);
    expect((await handle.query(progressQuery)).callbacks).toMatchObject({ review: 0, video: 0 });
  });

  it('an ambiguous create fails SubmitUnconfirmed at once: one create, never a second task', async () => {
    stack.sandbox.reset();
    stack.sandbox.addFault({
      operation: 'video.create',
      times: 1,
      fault: { type: 'status', status: 500, commit: true },
    });
    const failure = await failureOf(await stack.start(imageJob()));
    expect(failure.type).toBe('SubmitUnconfirmed');
    expect(failure.message).toContain('no callback address was sent');
    expect(failure.details?.[0]).toMatchObject({ stage: 'creating', callbackSent: false });
    expect(ops('video.create')).toHaveLength(1);
    expect(stack.sandbox.videoTasks()).toHaveLength(1);
  });

  it('an ambiguous review submit fails SubmitUnconfirmed at once, naming the batch', async () => {
    stack.sandbox.reset();
    const url = 'https://cdn.example.com/people/polling-only.jpg';
    stack.sandbox.addFault({
      operation: 'review.submitAsync',
      times: 1,
      fault: { type: 'status', status: 500, commit: true },
    });
    const failure = await failureOf(await stack.start(imageJob(url)));
    expect(failure.type).toBe('SubmitUnconfirmed');
    expect(failure.message).toContain(url);
    expect(failure.details?.[0]).toMatchObject({ stage: 'reviewing', urls: [url], callbackSent: false });
    expect(ops('review.submitAsync')).toHaveLength(1);
    expect(countOps(stack.sandbox)['video.create'] ?? 0).toBe(0);
  });

  it('opted in (resubmitOnAmbiguity): an ambiguous create is resubmitted at once, as the job allowed', async () => {
    stack.sandbox.reset();
    stack.sandbox.addFault({
      operation: 'video.create',
      times: 1,
      fault: { type: 'status', status: 500, commit: false },
    });
    const result = await (await stack.start(imageJob(undefined, { resubmitOnAmbiguity: true }))).result();
    expect(result.state).toBe('succeeded');
    expect(ops('video.create')).toHaveLength(2);
    expect(stack.sandbox.videoTasks()).toHaveLength(1);
  });
});
