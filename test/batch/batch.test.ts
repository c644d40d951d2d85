// ReviewThenGenerateBatch on the real dev server with the sandbox over HTTP: every job accounted for
// (succeeded, failed, invalid, duplicate), bounded concurrency, continue-as-new with nothing started twice,
// a progress query, cancellation reaching the children, and refusal of a bad batch before it exists.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WorkflowFailedError, WorkflowNotFoundError } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  batchHandle,
  InvalidJobInputError,
  startReviewThenGenerate,
  startReviewThenGenerateBatch,
  type BatchProgress,
} from '../../src/client/index.js';
import { countOps, imageJob, startStack, workflowBundle, type Stack } from '../support/stack.js';
import { replayHistories, testClient } from '../support/temporal.js';
import { waitFor, waitForList } from '../support/visibility.js';

let stack: Stack;
const replay: Array<{ workflowId: string }> = [];
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  expect(await replayHistories(replay, workflowBundle())).toBe(replay.length);
  await stack.stop();
});

/** Largest number of runs open at the same instant, from their start and close times. */
async function maxOverlap(workflowIds: string[]): Promise<number> {
  const client = await testClient();
  const spans = await Promise.all(
    workflowIds.map(async (id) => {
      const d = await client.workflow.getHandle(id).describe();
      return [d.startTime.getTime(), d.closeTime!.getTime()] as const;
    }),
  );
  const events = spans
    .flatMap(([s, e]) => [[s, 1] as const, [e, -1] as const])
    .sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let open = 0;
  let max = 0;
  for (const [, d] of events) max = Math.max(max, (open += d));
  return max;
}

describe('ReviewThenGenerateBatch', () => {
  it('runs inline jobs with bounded concurrency across continue-as-new and accounts for every outcome', async () => {
    const client = await testClient();
    stack.sandbox.reset();
    const tag = randomUUID().slice(0, 8);
    const rejected = `https://cdn.example.com/batch/${tag}/rejected.jpg`;
    stack.sandbox.setReviewVerdict(rejected, { passed: false, errorCode: 'E1', errorMessage: 'not allowed' });
    const existing = await startReviewThenGenerate(client, {
      businessKey: `order-${tag}`,
      input: imageJob(`https://cdn.example.com/batch/${tag}/x.jpg`),
      taskQueue: stack.taskQueue,
    });
    await existing.result();
    const good = (i: number) => imageJob(`https://cdn.example.com/batch/${tag}/${i}.jpg`);
    const jobs = [
      good(0),
      good(1),
      { key: `order-${tag}`, input: good(2) }, // key already used: duplicate, not started again
      imageJob(rejected),
      good(4),
      { input: { ...good(5), task: { ...good(5).task, model: '' } } }, // invalid: never started
      good(6),
      { key: `order-${tag}-7`, input: good(7) },
      good(8),
    ];
    const batchId = `batch-${tag}`;
    // Started without our helper (which would refuse the invalid job): the workflow validates each job itself.
    await client.workflow.start('ReviewThenGenerateBatch', {
      workflowId: batchId,
      taskQueue: stack.taskQueue,
      args: [{ jobs, concurrency: 2, continueAsNewEvery: 3 }],
    });
    const batch = batchHandle(client, batchId, false);
    replay.push(batch);
    // A repeated start of the same batch id through the helper returns it instead of a second batch.
    const valid = jobs.filter((_, i) => i !== 5);
    expect(
      (await startReviewThenGenerateBatch(client, { batchId, batch: { jobs: valid }, taskQueue: stack.taskQueue }))
        .existing,
    ).toBe(true);

    const seen: BatchProgress[] = [];
    let finished = false;
    const watching = (async () => {
      while (!finished) {
        seen.push(await batch.progress().catch(() => seen[seen.length - 1]!));
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    const summary = await batch.result();
    finished = true;
    await watching;

    expect(summary.total).toBe(9);
    expect(summary.counts).toEqual({ succeeded: 6, failed: 1, cancelled: 0, duplicate: 1, invalid: 1 });
    expect(summary.outcomes.map((o) => o.index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    expect(summary.outcomes.map((o) => o.status)).toEqual([
      'succeeded',
      'succeeded',
      'duplicate',
      'failed',
      'succeeded',
      'invalid',
      'succeeded',
      'succeeded',
      'succeeded',
    ]);
    expect(summary.outcomes[0]).toMatchObject({
      workflowId: `${batchId}/0`,
      taskId: expect.any(String),
      videoUrl: expect.stringMatching(/\.mp4$/),
    });
    expect(summary.outcomes[2]).toMatchObject({ workflowId: `order-${tag}` });
    expect(summary.outcomes[3]!.error).toMatch(/^ReviewRejected: /);
    expect(summary.outcomes[5]).toMatchObject({ error: expect.stringMatching(/^job 5: task\.model/) });
    expect(summary.outcomes[5]!.workflowId).toBeUndefined();
    expect(summary.outcomes[7]).toMatchObject({ status: 'succeeded', workflowId: `order-${tag}-7` });
    expect(summary.runs.map((r) => r.jobs)).toEqual([3, 3, 3]);
    console.log(
      `batch runs: ${summary.runs.map((r) => `run ${r.run}: ${r.jobs} jobs, ${r.historyLength} events, ${r.historySizeBytes} bytes`).join('; ')}`,
    );

    // One create per succeeded job (the existing key's run included), none for the others.
    expect(countOps(stack.sandbox)['video.create']).toBe(6 + 1);
    expect(seen.every((p) => p.running <= 2)).toBe(true);
    expect(seen.some((p) => p.run > 1)).toBe(true);
    const children = summary.outcomes
      .filter((o) => o.status === 'succeeded' || o.status === 'failed')
      .map((o) => o.workflowId!);
    expect(await maxOverlap(children)).toBeLessThanOrEqual(2);
    const listed = await waitForList(client, `BatchId="${batchId}"`, (ids) => ids.length === 7);
    expect(listed.sort()).toEqual([...children].sort());
    replay.push(...children.map((workflowId) => ({ workflowId })));
  });

  it('reads a JSON Lines file page by page across continue-as-new, reporting bad lines by number', async () => {
    const client = await testClient();
    const tag = randomUUID().slice(0, 8);
    const lines = Array.from({ length: 14 }, (_, i) =>
      JSON.stringify(imageJob(`https://cdn.example.com/file/${tag}/${i}.png`)),
    );
    lines[4] = '{ not json';
    lines[9] = JSON.stringify({ task: { model: 'm' } });
    lines.splice(7, 0, ''); // a blank line: not a job, but line numbers count it
    const path = join(mkdtempSync(join(tmpdir(), 'batch-file-')), 'jobs.jsonl');
    writeFileSync(path, `${lines.join('\n')}\n`);
    const batch = await startReviewThenGenerateBatch(client, {
      batchId: `file-${tag}`,
      batch: { jobsFile: path, concurrency: 3, pageSize: 4, continueAsNewEvery: 5 },
      taskQueue: stack.taskQueue,
    });
    replay.push(batch);
    const summary = await batch.result();
    expect(summary.total).toBe(14);
    expect(summary.counts).toMatchObject({ succeeded: 12, invalid: 2, failed: 0 });
    const invalid = summary.outcomes.filter((o) => o.status === 'invalid');
    expect(invalid.map((o) => [o.index, o.line, o.error?.slice(0, 8)])).toEqual([
      [4, 5, 'line 5: '],
      [9, 11, 'line 11:'],
    ]);
    expect(invalid[0]!.error).toBe('line 5: not valid JSON');
    expect(summary.outcomes.map((o) => o.line)).toEqual([1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12, 13, 14, 15]);
    expect(summary.runs.length).toBe(3);
  });

  it('cancelling a batch cancels its running jobs, which cancel their video tasks', async () => {
    const client = await testClient();
    stack.sandbox.reset();
    const tag = randomUUID().slice(0, 8);
    stack.sandbox.setVideoOutcome({ promptIncludes: `held-${tag}` }, 'succeeded', 300_000);
    const jobs = Array.from({ length: 4 }, (_, i) => {
      const input = imageJob(`https://cdn.example.com/cancel/${tag}/${i}.jpg`);
      input.task.content = [
        { type: 'text', text: `held-${tag} scene ${i}` },
        ...(input.task.content as unknown[]).slice(1),
      ] as typeof input.task.content;
      return input;
    });
    const batchId = `cancel-${tag}`;
    const batch = await startReviewThenGenerateBatch(client, {
      batchId,
      batch: { jobs, concurrency: 2 },
      taskQueue: stack.taskQueue,
    });
    replay.push(batch);
    await waitForList(client, `BatchId="${batchId}" AND ReviewStage="generating"`, (ids) => ids.length === 2, 60_000);
    await batch.cancel();
    const err = await batch.result().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WorkflowFailedError);
    const progress = await batch.progress();
    expect(progress).toMatchObject({ running: 0, done: 2, counts: { cancelled: 2, succeeded: 0 } });
    expect(countOps(stack.sandbox)['video.cancel']).toBe(2);
    expect(countOps(stack.sandbox)['video.create']).toBe(2); // the other two never started
    const statuses = await waitFor(
      'children cancelled',
      async () =>
        Promise.all(
          [0, 1].map(async (i) => (await client.workflow.getHandle(`${batchId}/${i}`).describe()).status.name),
        ),
      (s) => s.every((x) => x === 'CANCELLED'),
    );
    expect(statuses).toEqual(['CANCELLED', 'CANCELLED']);
  });

  it('refuses a batch with a bad job before any workflow exists', async () => {
    const client = await testClient();
    const batchId = `refused-${randomUUID().slice(0, 8)}`;
    const err = await startReviewThenGenerateBatch(client, {
      batchId,
      batch: { jobs: [imageJob(), { input: { task: {} } }, { key: 'a b', input: imageJob() }] },
      taskQueue: stack.taskQueue,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidJobInputError);
    expect((err as InvalidJobInputError).problems.map((p) => p.field)).toEqual(['jobs[1]', 'jobs[2]']);
    const both = await startReviewThenGenerateBatch(client, {
      batchId,
      batch: { jobs: [], jobsFile: '/x.jsonl' } as never,
      taskQueue: stack.taskQueue,
    }).catch((e: unknown) => e);
    expect((both as InvalidJobInputError).message).toContain('exactly one of jobs or jobsFile');
    await expect(client.workflow.getHandle(batchId).describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
  });
});
