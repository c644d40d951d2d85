// Waiting holds no worker slot and does not grow the history with the number of polls: polling is one
// activity whose retries are the polls, so 500 polls cost the same events as 5.
import { WorkflowFailedError } from '@temporalio/client';
import { expect, it } from 'vitest';
import { fastTiming, imageJob, withStack, type Stack } from '../support/stack.js';
import { progressQuery } from '../../src/job/definitions.js';

let stack: Stack;
withStack({}, (s) => (stack = s));

/** Polls the sandbox log until the task has been queried `n` times, then ends the task from outside. */
async function endAfterPolls(taskId: string, n: number) {
  for (;;) {
    const polls = stack.sandbox
      .requests()
      .filter((r) => r.operation === 'video.get' && r.path.endsWith(`/${taskId}`)).length;
    if (polls >= n) {
      // The provider ends the task (as an operator would); both runs then finish the same way.
      await stack.clients.video.cancelTask(taskId);
      return polls;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

it('a job polling 500 times has the history length of one polling 5 times', async () => {
  stack.sandbox.reset();
  const interval = 100;
  stack.sandbox.setVideoOutcome({ promptIncludes: 'endless' }, 'succeeded', 3_600_000);
  const job = (image: string) => {
    const input = imageJob(image, {
      callbacks: false,
      timing: { ...fastTiming, videoPollIntervalMs: interval, generationTimeoutMs: 600_000 },
    });
    (input.task.content as Array<{ text?: string }>)[0]!.text = 'an endless video';
    return input;
  };
  const short = await stack.start(job('https://cdn.example.com/h/short.jpg'));
  const long = await stack.start(job('https://cdn.example.com/h/long.jpg'));
  // The video task id of each run, from its progress query.
  const taskIdOf = async (h: Awaited<ReturnType<Stack['start']>>) => {
    for (;;) {
      const id = (await h.query(progressQuery).catch(() => undefined))?.taskId;
      if (id) return id;
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const [shortTask, longTask] = await Promise.all([taskIdOf(short), taskIdOf(long)]);
  const [shortPolls, longPolls] = await Promise.all([endAfterPolls(shortTask, 5), endAfterPolls(longTask, 500)]);
  for (const h of [short, long]) {
    const err = await h.result().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(WorkflowFailedError);
    expect(((err as WorkflowFailedError).cause as { type?: string }).type).toBe('GenerationCancelled');
  }
  // The review task's final callback is signalled to a polling run too (docs/rules.md), and a signal wakes
  // a workflow task of its own or lands in one already running: signals and workflow-task events are left
  // out; every other event (activities, timers, upserts, the start and the end) is compared.
  const eventsBesidesSignals = async (h: typeof short) => {
    const events = (await h.fetchHistory()).events ?? [];
    return events.filter(
      (e) =>
        !e.workflowExecutionSignaledEventAttributes &&
        !e.workflowTaskScheduledEventAttributes &&
        !e.workflowTaskStartedEventAttributes &&
        !e.workflowTaskCompletedEventAttributes &&
        !e.workflowTaskTimedOutEventAttributes &&
        !e.workflowTaskFailedEventAttributes,
    ).length;
  };
  const shortEvents = await eventsBesidesSignals(short);
  const longEvents = await eventsBesidesSignals(long);
  console.log(
    `history: ${shortPolls} video polls -> ${shortEvents} events; ${longPolls} video polls -> ${longEvents} events`,
  );
  expect(longPolls).toBeGreaterThanOrEqual(500);
  expect(shortPolls).toBeLessThan(10);
  expect(longEvents).toBe(shortEvents);
}, 400_000);
