// Workflow cancellation (video task cancelled; nothing created when cancelled during review) and callback
// handling (forged, duplicated, reordered, dropped).
import { CancelledFailure, WorkflowFailedError } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { countOps, fastTiming, imageJob, withStack, type Stack } from '../support/stack.js';
import { progressQuery } from '../../src/job/definitions.js';

let stack: Stack;
withStack({}, (s) => (stack = s));

async function until(check: () => boolean | Promise<boolean>, timeoutMs = 30_000) {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function expectCancelled(p: Promise<unknown>) {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(WorkflowFailedError);
  expect((err as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
}

describe('cancellation', () => {
  it('cancelling while the video runs cancels the video task in the sandbox', async () => {
    stack.sandbox.reset();
    stack.sandbox.setVideoOutcome({ promptIncludes: 'long video' }, 'succeeded', 60_000);
    const input = imageJob();
    (input.task.content as Array<{ text?: string }>)[0]!.text = 'a long video of the sea';
    const handle = await stack.start(input);
    await until(async () => (await handle.query(progressQuery)).stage === 'generating');
    await handle.cancel();
    await expectCancelled(handle.result());
    const cancels = stack.sandbox.requests().filter((r) => r.operation === 'video.cancel');
    expect(cancels).toHaveLength(1);
    expect(stack.sandbox.videoTasks()[0]!.status).toBe('cancelled');
    expect(cancels[0]!.path).toContain(stack.sandbox.videoTasks()[0]!.id);
  });

  it('cancelling during review never creates a task', async () => {
    stack.sandbox.reset();
    const url = 'https://cdn.example.com/slow-review/a.jpg';
    stack.sandbox.setReviewTaskOutcome({ url }, 'completed', 3_000);
    const handle = await stack.start(imageJob(url));
    await until(() => stack.sandbox.requests().some((r) => r.operation === 'review.submitAsync'));
    await handle.cancel();
    await expectCancelled(handle.result());
    await new Promise((r) => setTimeout(r, 3_500)); // past the review's end and its callback
    expect(countOps(stack.sandbox)['video.create'] ?? 0).toBe(0);
    expect(stack.sandbox.videoTasks()).toHaveLength(0);
  });
});

describe('callbacks', () => {
  it('a forged callback (bad signature) gets 401 and signals nothing', async () => {
    stack.sandbox.reset();
    const url = 'https://cdn.example.com/forged/a.jpg';
    stack.sandbox.setReviewTaskOutcome({ url }, 'completed', 2_000);
    const handle = await stack.start(imageJob(url));
    for (const sig of ['', 'AAAA', 'x'.repeat(43)]) {
      const res = await fetch(
        `${stack.receiver.url}/callbacks/review/${encodeURIComponent(handle.workflowId)}?sig=${sig}`,
        {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ task_id: 'forged', status: 'completed' }),
        },
      );
      expect(res.status).toBe(401);
    }
    expect((await handle.query(progressQuery)).callbacks.review).toBe(0);
    await handle.result();
    expect((await handle.query(progressQuery)).callbacks.review).toBe(1);
  });

  it('a review callback naming no task and reporting cancelled is a hint: one confirming query, the review goes on (issue 36, 7)', async () => {
    stack.sandbox.reset();
    const url = 'https://cdn.example.com/hint/a.jpg';
    stack.sandbox.setReviewTaskOutcome({ url }, 'completed', 3_000);
    const handle = await stack.start(imageJob(url));
    await until(() => stack.sandbox.reviewTasks().length > 0);
    // The URL is signed, the body is not: anyone holding the URL can write any body.
    const submit = stack.sandbox.requests().find((r) => r.operation === 'review.submitAsync')!;
    const callbackUrl = (submit.body as { callback_url: string }).callback_url;
    const res = await fetch(callbackUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ status: 'cancelled' }),
    });
    expect(res.status).toBeLessThan(300);
    const result = await handle.result();
    expect(result.state).toBe('succeeded');
    const progress = await handle.query(progressQuery);
    expect(progress.callbacks.review).toBe(2);
    // One query for the hint (the task was still processing), one for the review's own callback.
    expect(countOps(stack.sandbox)['review.query']).toBe(2);
  });

  it('a video callback naming another task, after a create that was not ambiguous, cancels nothing (issue 36, 8)', async () => {
    stack.sandbox.reset();
    stack.sandbox.setVideoOutcome({ promptIncludes: 'bystander' }, 'succeeded', 60_000);
    // Another job's task, of the same model: the run never made it.
    const bystander = await fetch(`${stack.sandbox.videoBaseUrl}/v1/task/create`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${stack.sandbox.apiKey}` },
      body: JSON.stringify({ model: imageJob().task.model, content: [{ type: 'text', text: 'a bystander' }] }),
    }).then((r) => r.json() as Promise<{ id: string }>);
    stack.sandbox.setVideoOutcome({ promptIncludes: 'slow story' }, 'succeeded', 3_000);
    const input = imageJob();
    (input.task.content as Array<{ text?: string }>)[0]!.text = 'a slow story';
    const handle = await stack.start(input);
    await until(() => stack.sandbox.videoTasks().length > 1);
    const callbackUrl = stack.sandbox
      .requests()
      .map((r) => (r.operation === 'video.create' ? (r.body as { callback_url?: string }).callback_url : undefined))
      .find((u) => u !== undefined)!;
    const res = await fetch(callbackUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ id: bystander.id, status: 'succeeded' }),
    });
    expect(res.status).toBeLessThan(300);
    const result = await handle.result();
    expect(result.state).toBe('succeeded');
    expect(countOps(stack.sandbox)['video.cancel'] ?? 0).toBe(0);
    expect(stack.sandbox.videoTasks().find((t) => t.id === bystander.id)!.status).not.toBe('cancelled');
    expect((await handle.query(progressQuery)).orphanTasksCancelled).toBeUndefined();
  });

  it('duplicated and reordered callbacks give the same result and the same calls', async () => {
    stack.sandbox.reset();
    stack.sandbox.setCallbackFault({ kind: 'review', mode: 'duplicate', times: 1 });
    stack.sandbox.setCallbackFault({ kind: 'video', mode: 'reorder', times: 1 });
    stack.sandbox.setCallbackFault({ kind: 'video', mode: 'duplicate', times: 5 });
    const result = await (await stack.start(imageJob())).result();
    expect(result.state).toBe('succeeded');
    expect(countOps(stack.sandbox)).toMatchObject({ 'review.submitAsync': 1, 'video.create': 1 });
    expect(stack.sandbox.videoTasks()).toHaveLength(1);
  });

  it('dropped callbacks: polling at the fallback cadence finishes the job', async () => {
    stack.sandbox.reset();
    stack.sandbox.setCallbackFault({ kind: 'review', mode: 'drop', times: 10 });
    stack.sandbox.setCallbackFault({ kind: 'video', mode: 'drop', times: 10 });
    const handle = await stack.start(imageJob(undefined, { timing: { ...fastTiming, callbackFallbackPollMs: 1_000 } }));
    const result = await handle.result();
    expect(result.state).toBe('succeeded');
    expect(stack.sandbox.callbacks().every((c) => c.outcome === 'dropped')).toBe(true);
    expect((await handle.query(progressQuery)).callbacks).toMatchObject({ review: 0, video: 0 });
  });
});
