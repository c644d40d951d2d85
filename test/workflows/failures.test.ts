// Review verdicts that must stop the job before any video task exists, and the failure types callers see.
import { describe, expect, it } from 'vitest';
import { auditRequestLog } from 'temporal-review-video-sandbox';
import { failureOf } from '../support/failures.js';
import { countOps, fastTiming, imageJob, withStack, type Stack } from '../support/stack.js';
import { testClient } from '../support/temporal.js';

let stack: Stack;
withStack({}, (s) => (stack = s));

describe('ReviewThenGenerate failures', () => {
  it('a rejected item ends in ReviewRejected with its error fields, and no create', async () => {
    stack.sandbox.reset();
    const bad = 'https://cdn.example.com/people/bob.jpg';
    stack.sandbox.setReviewVerdict(bad, {
      passed: false,
      errorCode: 'FACE_NOT_AUTHORIZED',
      errorMessage: 'real person not authorized',
    });
    const input = imageJob('https://cdn.example.com/people/alice.jpg');
    input.review = { urls: ['https://cdn.example.com/people/alice.jpg', bad] };
    const failure = await failureOf(await stack.start(input));
    expect(failure.type).toBe('ReviewRejected');
    expect(failure.message).toContain('FACE_NOT_AUTHORIZED');
    expect(failure.details?.[0]).toMatchObject({
      items: [{ url: bad, error_code: 'FACE_NOT_AUTHORIZED', error_message: 'real person not authorized' }],
    });
    expect(countOps(stack.sandbox)['video.create'] ?? 0).toBe(0);
  });

  it('a failed review task ends in ReviewFailed: no create, no resubmit', async () => {
    stack.sandbox.reset();
    const url = 'https://cdn.example.com/fail/x.jpg';
    stack.sandbox.setReviewTaskOutcome({ url }, 'failed');
    const failure = await failureOf(await stack.start(imageJob(url)));
    expect(failure.type).toBe('ReviewFailed');
    const ops = countOps(stack.sandbox);
    expect(ops['video.create'] ?? 0).toBe(0);
    expect(ops['review.submitAsync']).toBe(1);
  });

  it('a cancelled review task ends in ReviewCancelled: querying stops, no create, no resubmit', async () => {
    stack.sandbox.reset();
    const url = 'https://cdn.example.com/cancel/x.jpg';
    stack.sandbox.setReviewTaskOutcome({ url }, 'cancelled');
    const failure = await failureOf(await stack.start(imageJob(url, { callbacks: false })));
    expect(failure.type).toBe('ReviewCancelled');
    const ops = countOps(stack.sandbox);
    expect(ops['video.create'] ?? 0).toBe(0);
    expect(ops['review.submitAsync']).toBe(1);
    const lastQuery = stack.sandbox
      .requests()
      .filter((r) => r.operation === 'review.query')
      .at(-1)!;
    await new Promise((r) => setTimeout(r, 1_000));
    expect(
      stack.sandbox
        .requests()
        .filter((r) => r.operation === 'review.query')
        .at(-1)!.seq,
    ).toBe(lastQuery.seq);
  });

  it('with callbacks, a review callback reporting `cancelled` is confirmed by one query (a body is not signed): ReviewCancelled, no query after it', async () => {
    stack.sandbox.reset();
    const url = 'https://cdn.example.com/cancel/by-callback.jpg';
    stack.sandbox.setReviewTaskOutcome({ url }, 'cancelled');
    const handle = await stack.start(imageJob(url, { callbacks: true }));
    const failure = await failureOf(handle);
    expect(failure.type).toBe('ReviewCancelled');
    expect(stack.sandbox.callbacks().filter((c) => c.status === 'cancelled')).toHaveLength(1);
    const ops = countOps(stack.sandbox);
    expect(ops['review.query']).toBe(1);
    expect(ops['video.create'] ?? 0).toBe(0);
    expect(
      auditRequestLog(stack.sandbox.requests(), { minQueryIntervalMs: fastTiming.reviewMinQueryIntervalMs }),
    ).toEqual([]);
  });

  it('a video task that fails or expires ends in GenerationFailed / GenerationExpired', async () => {
    stack.sandbox.reset();
    stack.sandbox.setVideoOutcome({ promptIncludes: 'will-fail' }, 'failed');
    stack.sandbox.setVideoOutcome({ promptIncludes: 'will-expire' }, 'expired');
    const failing = imageJob();
    (failing.task.content as Array<{ type: string; text?: string }>)[0]!.text = 'this will-fail';
    const expiring = imageJob('https://cdn.example.com/people/carol.jpg');
    (expiring.task.content as Array<{ type: string; text?: string }>)[0]!.text = 'this will-expire';
    const [f1, f2] = await Promise.all([failureOf(await stack.start(failing)), failureOf(await stack.start(expiring))]);
    expect(f1.type).toBe('GenerationFailed');
    expect(f2.type).toBe('GenerationExpired');
  });

  it('a review that outlasts reviewTimeoutMs ends in ReviewTimedOut (polling and callbacks), and no create', async () => {
    stack.sandbox.reset();
    const slow = (name: string) => `https://cdn.example.com/too-slow/${name}.jpg`;
    stack.sandbox.setReviewTaskOutcome({ url: slow('a') }, 'completed', 60_000);
    stack.sandbox.setReviewTaskOutcome({ url: slow('b') }, 'completed', 60_000);
    const timing = { ...fastTiming, reviewTimeoutMs: 3_000, callbackFallbackPollMs: 1_000 };
    const [polling, callbacks] = await Promise.all([
      failureOf(await stack.start(imageJob(slow('a'), { callbacks: false, timing }))),
      failureOf(await stack.start(imageJob(slow('b'), { callbacks: true, timing }))),
    ]);
    expect(polling.type).toBe('ReviewTimedOut');
    expect(callbacks.type).toBe('ReviewTimedOut');
    expect(countOps(stack.sandbox)['video.create'] ?? 0).toBe(0);
  });

  it('invalid input fails at once with InvalidInput listing every problem, before any call', async () => {
    stack.sandbox.reset();
    const handle = await stack.start({
      task: {
        model: '',
        content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }],
        ratio: '16/9',
        seed: 1.5,
      },
      review: { urls: ['ftp://x/y.jpg'], groupSource: 7 },
    } as never);
    const failure = await failureOf(handle);
    expect(failure.type).toBe('InvalidInput');
    expect(failure.nonRetryable).toBe(true);
    // Shape errors (review.groupSource) and the review URLs are listed with the task's problems.
    for (const field of [
      'task.model',
      'task.content[0].image_url.url',
      'task.ratio',
      'task.seed',
      'review.groupSource',
      'review.urls[0]',
    ])
      expect(failure.message).toContain(field);
    expect(stack.sandbox.requests()).toHaveLength(0);
    const desc = await (await testClient()).workflow.getHandle(handle.workflowId).describe();
    expect(desc.status.name).toBe('FAILED');
  });

  it('a wrong API key ends in Unauthorized (401 is final: one call, no retry)', async () => {
    stack.sandbox.reset();
    stack.sandbox.addFault({ operation: 'video.create', times: 1, fault: { type: 'status', status: 401 } });
    const failure = await failureOf(await stack.start(imageJob()));
    expect(failure.type).toBe('Unauthorized');
    expect(countOps(stack.sandbox)['video.create']).toBe(1);
  });

  it('a 400 on create ends in VideoRequestRejected without retry', async () => {
    stack.sandbox.reset();
    stack.sandbox.addFault({
      operation: 'video.create',
      times: 1,
      fault: { type: 'status', status: 400, body: { error: { code: 'InvalidParameter', message: 'bad ratio' } } },
    });
    const failure = await failureOf(await stack.start(imageJob()));
    expect(failure.type).toBe('VideoRequestRejected');
    expect(countOps(stack.sandbox)['video.create']).toBe(1);
  });
});
