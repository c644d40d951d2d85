// What a job costs on Temporal, counted from its history (BENCHMARKS.md has the same counts at scale),
// started as our client helper starts it (search attributes set, `ReviewStage` already `reviewing`):
// - with callbacks: at most 10 billable actions and 42 events (the confirming queries are ordinary
//   activities: a retried workflow task never sends one again; 8 events more than local ones, no action);
// - polling: at most 5 actions beyond the polls themselves: the review task's final callback is signalled
//   (a poll whose answer was lost with its worker may have seen `cancelled`; only a callback can tell
//   without a query); the video task's are dropped (its callback URL says, signed, that the run polls).
// With callbacks the video task runs for 200 ms: its `running` callback comes before the run has indexed
// the task, and the receiver, asking again a moment later, drops it. Polling, it runs for 4 s.
import { randomUUID } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { startReviewThenGenerate } from '../../src/client/start.js';
import { costOf } from '../support/history-cost.js';
import { imageJob, withStack, type Stack } from '../support/stack.js';
import { testClient } from '../support/temporal.js';

let stack: Stack;
withStack({}, (s) => (stack = s));

async function runAndCost(callbacks: boolean) {
  const client = await testClient();
  const marker = `cost-${randomUUID()}`;
  stack.sandbox.setVideoOutcome({ promptIncludes: marker }, 'succeeded', callbacks ? 200 : 4_000);
  const input = imageJob(`https://cdn.example.com/cost/${callbacks ? 'cb' : 'poll'}.jpg`, { callbacks });
  const content = input.task.content;
  input.task.content = [{ type: 'text', text: `A person walks along the beach ${marker}` }, ...content.slice(1)];
  const handle = await startReviewThenGenerate(client, { businessKey: marker, taskQueue: stack.taskQueue, input });
  stack.handles.push(client.workflow.getHandle(handle.workflowId));
  expect((await handle.result()).state).toBe('succeeded');
  return { marker, ...costOf(await client.workflow.getHandle(handle.workflowId).fetchHistory()) };
}

describe('cost of one job', () => {
  it('with callbacks: at most 10 actions and 42 events; the confirming queries are ordinary activities', async () => {
    stack.sandbox.reset();
    const cost = await runAndCost(true);
    console.log(`callbacks: ${cost.events} events, ${cost.actions} actions ${JSON.stringify(cost.byKind)}`);
    expect(cost.byKind).toEqual({
      start: 1,
      'activity attempts': 4, // the review submit, the create, and one confirming query per final callback
      signals: 2, // the final review and video callbacks; `running` is dropped by the receiver
      timers: 2, // the fallback of each wait
      'search-attribute upserts': 1, // `generating`; `reviewing` was set at start, the outcome is ExecutionStatus
    });
    expect(cost.actions).toBeLessThanOrEqual(10);
    expect(cost.events).toBeLessThanOrEqual(42);
    // The service called back twice for the video (`running`, `succeeded`); only the final state became a
    // signal. The `running` one is answered after the receiver's second look, a second later.
    const video = () => stack.callbackOutcomes.filter((o) => o.workflowId === cost.marker && o.kind === 'video');
    await vi.waitFor(() => expect(video()).toHaveLength(2), { timeout: 10_000 });
    expect(
      video()
        .map((o) => o.outcome)
        .sort(),
    ).toEqual(['accepted', expect.stringMatching(/^not needed|^ignored \(run closed\)$/)]);
  });

  it('polling: at most 5 actions beyond the polls; only the review final callback is signalled', async () => {
    stack.sandbox.reset();
    const { marker, ...cost } = await runAndCost(false);
    console.log(`polling: ${cost.events} events, ${cost.actions} actions ${JSON.stringify(cost.byKind)}`);
    const requests = stack.sandbox.requests();
    const polls = requests.filter((r) => r.operation === 'review.query' || r.operation === 'video.get').length;
    // One attempt per query (a review poll's heartbeat reports each not-final answer), plus submit and create.
    expect(cost.byKind['activity attempts']).toBe(polls + 2);
    expect(cost.byKind.signals).toBe(1); // the final review callback
    expect(cost.actions - polls).toBeLessThanOrEqual(5);
    // The video service's callbacks (`running`, `succeeded`) of the polled task were dropped by the receiver.
    const video = () => stack.callbackOutcomes.filter((o) => o.workflowId === marker && o.kind === 'video');
    await vi.waitFor(() => expect(video()).toHaveLength(2), { timeout: 10_000 });
    expect(video().every((o) => /^not needed|^ignored \(run closed\)$/.test(o.outcome))).toBe(true);
  });
});
