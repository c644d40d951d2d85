// What the Web UI and list filters see, on the real dev server with our search attributes registered:
// each search attribute finds the right runs, and describe shows the summary, details and current details.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  describeRun,
  listRuns,
  reviewJobQuery,
  startReviewThenGenerate,
  type ReviewJobHandle,
} from '../../src/client/index.js';
import { imageJob, startStack, type Stack } from '../support/stack.js';
import { testClient } from '../support/temporal.js';
import { waitFor, waitForList } from '../support/visibility.js';

let stack: Stack;
let done: ReviewJobHandle;
let slow: ReviewJobHandle;
let batched: ReviewJobHandle;
const tag = randomUUID().slice(0, 8);
const modelA = `vis-model-a-${tag}`;
const modelB = `vis-model-b-${tag}`;
const batchId = `vis-batch-${tag}`;

beforeAll(async () => {
  stack = await startStack();
  const client = await testClient();
  stack.sandbox.setVideoOutcome({ model: modelB }, 'succeeded', 300_000);
  const job = (model: string, url: string, extra = {}) => {
    const input = imageJob(url, extra);
    input.task.model = model;
    return input;
  };
  done = await startReviewThenGenerate(client, {
    businessKey: `vis-done-${tag}`,
    input: job(modelA, 'https://cdn.example.com/vis/a.jpg'),
    taskQueue: stack.taskQueue,
  });
  slow = await startReviewThenGenerate(client, {
    businessKey: `vis-slow-${tag}`,
    input: job(modelB, 'https://cdn.example.com/vis/b.jpg'),
    taskQueue: stack.taskQueue,
  });
  batched = await startReviewThenGenerate(client, {
    businessKey: `vis-batched-${tag}`,
    input: job(modelA, 'https://cdn.example.com/vis/c.jpg', { batchId }),
    taskQueue: stack.taskQueue,
  });
  await done.result();
  await batched.result();
  await waitFor(
    'slow job generating',
    () => slow.progress(),
    (p) => p.stage === 'generating',
    60_000,
  );
});
afterAll(async () => {
  await slow?.cancel().catch(() => undefined);
  await slow?.result().catch(() => undefined);
  await stack.stop();
});

const ours = (ids: string[]) => ids.filter((id) => id.endsWith(tag)).sort();

describe('search attributes and list filters', () => {
  it('ReviewStage finds running runs by stage; ExecutionStatus finds them by outcome', async () => {
    const client = await testClient();
    // Scoped to this file's models: other files run (encrypted) jobs on the same server at the same time.
    const mine = `(VideoModel="${modelA}" OR VideoModel="${modelB}")`;
    const generating = await waitForList(
      client,
      `ReviewStage="generating" AND ExecutionStatus="Running" AND ${mine}`,
      (ids) => ours(ids).length === 1,
    );
    expect(ours(generating)).toEqual([slow.workflowId]);
    const succeeded = await waitForList(
      client,
      `ExecutionStatus="Completed" AND ${mine}`,
      (ids) => ours(ids).length === 2,
    );
    expect(ours(succeeded)).toEqual([batched.workflowId, done.workflowId].sort());
    // A closed run keeps the last working stage it reached.
    const reached = await waitForList(client, `ReviewStage="generating" AND ${mine}`, (ids) => ours(ids).length === 3);
    expect(ours(reached)).toEqual([batched.workflowId, done.workflowId, slow.workflowId].sort());
    const listed = await listRuns(client, { stage: 'succeeded', model: modelA });
    expect(ours(listed.map((r) => r.workflowId))).toEqual(ours(succeeded));
  });

  it('VideoModel, ReviewTaskIds, VideoTaskId and BatchId each find exactly the right run', async () => {
    const client = await testClient();
    const result = await done.result();
    expect(await waitForList(client, `VideoModel="${modelB}"`, (ids) => ids.length === 1)).toEqual([slow.workflowId]);
    expect((await waitForList(client, `VideoModel="${modelA}"`, (ids) => ids.length === 2)).sort()).toEqual(
      [batched.workflowId, done.workflowId].sort(),
    );
    expect(await waitForList(client, `ReviewTaskIds="${result.reviewTaskIds[0]}"`, (ids) => ids.length === 1)).toEqual([
      done.workflowId,
    ]);
    expect(await waitForList(client, `VideoTaskId="${result.taskId}"`, (ids) => ids.length === 1)).toEqual([
      done.workflowId,
    ]);
    expect(await waitForList(client, `BatchId="${batchId}"`, (ids) => ids.length === 1)).toEqual([batched.workflowId]);
    // The same filters through the helper, combined.
    const listed = await listRuns(client, { stage: 'generating', model: modelB });
    expect(listed.map((r) => r.workflowId)).toEqual([slow.workflowId]);
    expect(listed[0]!.searchAttributes).toMatchObject({ ReviewStage: 'generating', VideoModel: modelB });
    expect(reviewJobQuery({ stage: 'generating', batchId: 'b1' })).toBe(
      'WorkflowType="ReviewThenGenerate" AND ReviewStage="generating" AND ExecutionStatus="Running" AND BatchId="b1"',
    );
  });

  it('describe shows the static summary and details, the current details and the search attributes', async () => {
    const client = await testClient();
    const d = await describeRun(client, slow.workflowId);
    console.log(
      `describe ${d.workflowId}:\n  summary: ${d.staticSummary}\n  current details: ${d.currentDetails?.replace(/\n\n/g, ' | ')}`,
    );
    expect(d.status).toBe('RUNNING');
    expect(d.staticSummary).toBe(`${modelB} · 1 media · "A person walks along the beach at sunset"`);
    expect(d.staticDetails).toContain(`**Model:** ${modelB} · 16:9 · 5 s · 720p`);
    expect(d.staticDetails).toContain('**Media:** 1 (1 image)');
    expect(d.staticDetails).toContain(`**Business key:** ${slow.workflowId}`);
    expect(d.currentDetails).toContain('**Stage:** generating');
    expect(d.currentDetails).toContain('**Video task:**');
    expect(d.searchAttributes.ReviewStage).toBe('generating');
    expect(d.searchAttributes.VideoTaskId).toMatch(/.+/);
    expect(d.searchAttributes.ReviewTaskIds).toHaveLength(1);

    const finished = await describeRun(client, done.workflowId);
    expect(finished.status).toBe('COMPLETED');
    expect(finished.currentDetails).toContain('**Stage:** succeeded');
    expect((await describeRun(client, batched.workflowId)).staticDetails).toContain(`**Batch:** ${batchId}`);
  });

  it('memo, summary and details carry nothing secret and no media URL', async () => {
    const client = await testClient();
    for (const h of [done, slow, batched]) {
      const d = await describeRun(client, h.workflowId);
      expect(Object.keys(d.memo)).toEqual(['inputSha256']);
      const visible = JSON.stringify([d.memo, d.staticSummary, d.staticDetails, d.currentDetails, d.searchAttributes]);
      for (const secret of [stack.sandbox.apiKey, stack.sandbox.accessToken, stack.secret])
        expect(visible).not.toContain(secret);
      expect(visible).not.toContain('cdn.example.com');
      expect(visible).not.toContain('/callbacks/');
    }
  });
});
