// startReviewThenGenerate on the real dev server with the sandbox over HTTP: business-key id reuse,
// refusal of bad input before anything exists, conflicts, retry of failed keys, progress() and cancel().
import { randomUUID } from 'node:crypto';
import { WorkflowFailedError, WorkflowNotFoundError } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BusinessKeyConflictError, InvalidJobInputError, startReviewThenGenerate } from '../../src/client/index.js';
import { countOps, imageJob, startStack, workflowBundle, type Stack } from '../support/stack.js';
import { replayHistories, testClient } from '../support/temporal.js';
import { waitFor, waitForList } from '../support/visibility.js';

let stack: Stack;
const started: Array<{ workflowId: string }> = [];
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  expect(await replayHistories(started, workflowBundle())).toBe(started.length);
  await stack.stop();
});

const key = (what: string) => `client-${what}-${randomUUID()}`;

describe('startReviewThenGenerate', () => {
  it('a second start with the same business key returns the first run, and only one job is done', async () => {
    const client = await testClient();
    stack.sandbox.reset();
    const businessKey = key('dup');
    const input = imageJob('https://cdn.example.com/client/dup.jpg');
    const first = await startReviewThenGenerate(client, { businessKey, input, taskQueue: stack.taskQueue });
    started.push(first);
    expect(first.existing).toBe(false);
    expect(first.workflowId).toBe(businessKey);

    const second = await startReviewThenGenerate(client, { businessKey, input, taskQueue: stack.taskQueue });
    expect(second.existing).toBe(true);
    expect(second.runId).toBe(first.runId);

    const result = await second.result();
    expect(result.state).toBe('succeeded');
    // After it completed, a third start still returns the same run and its result.
    const third = await startReviewThenGenerate(client, { businessKey, input, taskQueue: stack.taskQueue });
    expect(third).toMatchObject({ existing: true, runId: first.runId });
    expect((await third.result()).taskId).toBe(result.taskId);

    expect(countOps(stack.sandbox)['video.create']).toBe(1);
    const runs = await waitForList(client, `WorkflowId="${businessKey}"`, (ids) => ids.length >= 1);
    expect(runs).toEqual([businessKey]);
  });

  it('refuses an invalid input before any workflow exists, naming each field and rule', async () => {
    const client = await testClient();
    stack.sandbox.reset();
    const businessKey = key('invalid');
    const input = imageJob('ftp://cdn.example.com/client/bad.jpg');
    (input.task as Record<string, unknown>).callback_url = 'https://evil.example.com/cb';
    const err = await startReviewThenGenerate(client, { businessKey, input, taskQueue: stack.taskQueue }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(InvalidJobInputError);
    const fields = (err as InvalidJobInputError).problems.map((p) => p.field);
    expect(fields).toContain('input.task.callback_url');
    expect(fields.some((f) => f.startsWith('input.task.content'))).toBe(true);
    await expect(client.workflow.getHandle(businessKey).describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);

    const badKey = await startReviewThenGenerate(client, {
      businessKey: 'has spaces in it',
      input: imageJob(),
      taskQueue: stack.taskQueue,
    }).catch((e: unknown) => e);
    expect(badKey).toBeInstanceOf(InvalidJobInputError);
    expect((badKey as InvalidJobInputError).problems[0]!.field).toBe('businessKey');
    await expect(client.workflow.getHandle('has spaces in it').describe()).rejects.toBeInstanceOf(
      WorkflowNotFoundError,
    );
    expect(stack.sandbox.requests()).toHaveLength(0);
  });

  it('lists every problem of the input in one go, shape errors included, and starts nothing', async () => {
    const client = await testClient();
    stack.sandbox.reset();
    const businessKey = key('rounds');
    const input = imageJob('data:image/png;base64,AAAA');
    Object.assign(input.task, { ratio: '16/9', duration: 0 });
    Object.assign(input, {
      review: { urls: ['https://cdn.example.com/client/a.txt'], groupId: 'g1', groupSource: 'celebrity' },
      callbacks: 'yes',
    });
    input.timing = { ...input.timing, pollEveryMs: 1 } as typeof input.timing;
    const err = await startReviewThenGenerate(client, {
      businessKey: 'has spaces',
      input,
      taskQueue: stack.taskQueue,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidJobInputError);
    expect((err as InvalidJobInputError).problems.map((p) => p.field)).toEqual([
      'businessKey',
      'input.task.content[1].image_url.url',
      'input.task.ratio',
      'input.task.duration',
      'input.review.groupSource',
      'input.review.urls[0]',
      'input.callbacks',
      'input.timing',
    ]);
    await expect(client.workflow.getHandle(businessKey).describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
    expect(stack.sandbox.requests()).toHaveLength(0);
  });

  it('refuses the same key with a different input, leaving the existing run alone', async () => {
    const client = await testClient();
    const businessKey = key('conflict');
    const first = await startReviewThenGenerate(client, {
      businessKey,
      input: imageJob('https://cdn.example.com/client/one.jpg'),
      taskQueue: stack.taskQueue,
    });
    started.push(first);
    const err = await startReviewThenGenerate(client, {
      businessKey,
      input: imageJob('https://cdn.example.com/client/two.jpg'),
      taskQueue: stack.taskQueue,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BusinessKeyConflictError);
    expect((err as BusinessKeyConflictError).runId).toBe(first.runId);
    expect((await first.result()).state).toBe('succeeded');
  });

  it('returns a failed run by default, and starts a new run for it only with retryFailed', async () => {
    const client = await testClient();
    const url = 'https://cdn.example.com/client/rejected-once.jpg';
    stack.sandbox.setReviewVerdict(url, {
      passed: false,
      errorCode: 'E_FACE',
      errorMessage: 'a real person was detected',
    });
    const businessKey = key('retry');
    const input = imageJob(url);
    const first = await startReviewThenGenerate(client, { businessKey, input, taskQueue: stack.taskQueue });
    started.push(first);
    const failure = await first.result().catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(WorkflowFailedError);

    const again = await startReviewThenGenerate(client, { businessKey, input, taskQueue: stack.taskQueue });
    expect(again).toMatchObject({ existing: true, runId: first.runId });

    stack.sandbox.setReviewVerdict(url, { passed: true });
    const retried = await startReviewThenGenerate(client, {
      businessKey,
      input,
      taskQueue: stack.taskQueue,
      retryFailed: true,
    });
    expect(retried.existing).toBe(false);
    expect(retried.runId).not.toBe(first.runId);
    expect((await retried.result()).state).toBe('succeeded');
    // Completed now: even retryFailed returns it instead of running the job again.
    const after = await startReviewThenGenerate(client, {
      businessKey,
      input,
      taskQueue: stack.taskQueue,
      retryFailed: true,
    });
    expect(after).toMatchObject({ existing: true, runId: retried.runId });
  });

  it('progress() follows the stages and cancel() cancels the video task', async () => {
    const client = await testClient();
    stack.sandbox.reset();
    stack.sandbox.setVideoOutcome({ promptIncludes: 'very slow' }, 'succeeded', 120_000);
    const input = imageJob('https://cdn.example.com/client/slow.jpg');
    input.task.content = [
      { type: 'text', text: 'a very slow sunrise' },
      ...(input.task.content as unknown[]).slice(1),
    ] as typeof input.task.content;
    const job = await startReviewThenGenerate(client, {
      businessKey: key('cancel'),
      input,
      taskQueue: stack.taskQueue,
    });
    started.push(job);
    const generating = await waitFor(
      'stage generating',
      () => job.progress(),
      (p) => p.stage === 'generating' && p.taskId !== undefined,
      60_000,
    );
    await job.cancel();
    await expect(job.result()).rejects.toBeInstanceOf(WorkflowFailedError);
    const progress = await job.progress();
    expect(progress.stage).toBe('cancelled');
    const cancels = stack.sandbox.requests().filter((r) => r.operation === 'video.cancel');
    expect(cancels).toHaveLength(1);
    expect(cancels[0]!.path).toContain(generating.taskId!);
    expect((await job.describe()).status).toBe('CANCELLED');
  });
});
