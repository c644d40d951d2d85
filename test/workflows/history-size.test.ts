// Waiting holds no worker slot and does not grow the history with the number of polls: polling is one
// activity whose retries are the polls, so 500 polls cost the same events as 5.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { fastTiming, imageJob, startStack, workflowBundle, type Stack } from '../support/stack.js';
import { assertNoSecretsInHistories, replayHistories } from '../support/temporal.js';

let stack: Stack;
beforeAll(async () => {
  await workflowBundle();
  stack = await startStack();
});
afterAll(async () => {
  expect(await replayHistories(stack.handles, await workflowBundle())).toBe(stack.handles.length);
  await assertNoSecretsInHistories(stack.handles, [stack.sandbox.apiKey, stack.sandbox.accessToken, stack.secret]);
  await stack.stop();
});

it('a job polling ~500 times has about the history length of one polling ~5 times', async () => {
  stack.sandbox.reset();
  const interval = 100;
  stack.sandbox.setVideoOutcome({ promptIncludes: 'short wait' }, 'succeeded', 5 * interval);
  stack.sandbox.setVideoOutcome({ promptIncludes: 'long wait' }, 'succeeded', 500 * interval);
  const job = (prompt: string, image: string) => {
    const input = imageJob(image, { callbacks: false, timing: { ...fastTiming, videoPollIntervalMs: interval } });
    (input.task.content as Array<{ text?: string }>)[0]!.text = prompt;
    return input;
  };
  const [short, long] = await Promise.all([
    stack.start(job('a short wait', 'https://cdn.example.com/h/short.jpg')),
    stack.start(job('a long wait', 'https://cdn.example.com/h/long.jpg')),
  ]);
  const [shortResult, longResult] = await Promise.all([short.result(), long.result()]);
  const gets = (taskId: string) => stack.sandbox.requests().filter((r) => r.operation === 'video.get' && r.path.includes(taskId)).length;
  const shortPolls = gets(shortResult.taskId);
  const longPolls = gets(longResult.taskId);
  const shortEvents = (await short.fetchHistory()).events?.length ?? 0;
  const longEvents = (await long.fetchHistory()).events?.length ?? 0;
  console.log(`history: ${shortPolls} video polls -> ${shortEvents} events; ${longPolls} video polls -> ${longEvents} events`);
  expect(longPolls).toBeGreaterThanOrEqual(400);
  expect(shortPolls).toBeLessThanOrEqual(15);
  expect(Math.abs(longEvents - shortEvents)).toBeLessThanOrEqual(2);
});
