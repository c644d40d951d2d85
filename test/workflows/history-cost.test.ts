// What a job costs on Temporal, counted from its history (BENCHMARKS.md has the same counts at scale):
// started as our client helper starts it (search attributes set), with callbacks and polling. The search
// index changes once per stage users filter on (reviewing, generating, the end), not at every step.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { startReviewThenGenerate } from '../../src/client/start.js';
import { costOf } from '../support/history-cost.js';
import { imageJob, withStack, type Stack } from '../support/stack.js';
import { testClient } from '../support/temporal.js';

let stack: Stack;
withStack({}, (s) => (stack = s));

async function runAndCost(callbacks: boolean) {
  const client = await testClient();
  const handle = await startReviewThenGenerate(client, {
    businessKey: `cost-${randomUUID()}`,
    taskQueue: stack.taskQueue,
    input: imageJob(`https://cdn.example.com/cost/${callbacks ? 'cb' : 'poll'}.jpg`, { callbacks }),
  });
  stack.handles.push(client.workflow.getHandle(handle.workflowId));
  expect((await handle.result()).state).toBe('succeeded');
  return costOf(await client.workflow.getHandle(handle.workflowId).fetchHistory());
}

describe('cost of one job', () => {
  it('with callbacks: four activities, three search-attribute upserts', async () => {
    stack.sandbox.reset();
    const cost = await runAndCost(true);
    console.log(`callbacks: ${cost.events} events, ${cost.actions} actions ${JSON.stringify(cost.byKind)}`);
    expect(cost.byKind['search-attribute upserts']).toBe(3);
    expect(cost.byKind['activity attempts']).toBe(4);
    expect(cost.byKind.start).toBe(1);
  });

  it('polling: three search-attribute upserts, and the polls are the activity attempts', async () => {
    stack.sandbox.reset();
    const cost = await runAndCost(false);
    console.log(`polling: ${cost.events} events, ${cost.actions} actions ${JSON.stringify(cost.byKind)}`);
    expect(cost.byKind['search-attribute upserts']).toBe(3);
    const queries = stack.sandbox
      .requests()
      .filter((r) => r.operation === 'review.query' || r.operation === 'video.get').length;
    // One attempt per query, plus the review submit and the create.
    expect(cost.byKind['activity attempts']).toBe(queries + 2);
  });
});
