// A create that finds a free slot (docs/operations.md, "Provider quotas"): its activity asks the gate with
// update-with-start, the answer is the grant, and the run creates in its next attempt. What it costs (the
// ask, the attempt that asked and the release; no grant signal, no `waiting_for_quota`), and what becomes
// of the slot when the create fails: the run holds it from the answer on, through the create's retries,
// an ambiguous answer and the job's own resubmit, and gives it back when the job ends.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { defaultVideoQuotaKey } from '../../src/config/admission.js';
import { startReviewThenGenerate } from '../../src/client/start.js';
import { admissionGateId, gateStateQuery } from '../../src/contract/index.js';
import { progressQuery } from '../../src/job/definitions.js';
import type { ReviewThenGenerateInput } from '../../src/job/input.js';
import { failureOf } from '../support/failures.js';
import { fastTiming, withStack, type Stack } from '../support/stack.js';
import { testClient } from '../support/temporal.js';
import { until } from '../support/until.js';

let stack: Stack;
withStack({ httpTimeoutMs: 1_000, admissionEnv: { VIDEO_MAX_TASKS_IN_FLIGHT: '2' } }, (s) => (stack = s));

function textJob(prompt: string, extra: Partial<ReviewThenGenerateInput> = {}, videoMs = 300) {
  stack.sandbox.setVideoOutcome({ promptIncludes: prompt }, 'succeeded', videoMs);
  const job: ReviewThenGenerateInput = {
    task: { model: 'video-model-1', content: [{ type: 'text', text: prompt }], ratio: '16:9', duration: 5 },
    callbacks: true,
    timing: fastTiming,
    ...extra,
  };
  return job;
}

/** Started as our helper starts jobs: with the search attributes, so that each stage change is indexed. */
async function startIndexed(input: ReviewThenGenerateInput) {
  const client = await testClient();
  const started = await startReviewThenGenerate(client, {
    businessKey: `at-once-${randomUUID()}`,
    input,
    taskQueue: stack.taskQueue,
  });
  return client.workflow.getHandle(started.workflowId);
}

const gate = async () =>
  (await testClient()).workflow.getHandle(admissionGateId(defaultVideoQuotaKey(stack.sandbox.videoBaseUrl)));
const inFlight = async () => (await (await gate()).query(gateStateQuery)).inFlight;

/** The gate's asks (updates) and releases (signals) of one job's request. */
async function gateMessagesOf(requestId: string) {
  const events = (await (await gate()).fetchHistory()).events ?? [];
  const payload = (data: Uint8Array | null | undefined) =>
    JSON.parse(Buffer.from(data ?? []).toString()) as { requestId?: string };
  const asks = events.filter((e) => {
    const input = e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input;
    return input?.name === 'acquireSlotNow' && payload(input.args?.payloads?.[0]?.data).requestId === requestId;
  });
  const releases = events.filter((e) => {
    const a = e.workflowExecutionSignaledEventAttributes;
    return a?.signalName === 'releaseSlot' && payload(a.input?.payloads?.[0]?.data).requestId === requestId;
  });
  return { asks: asks.length, releases: releases.length };
}

async function historyOf(workflowId: string) {
  const events = (await (await testClient()).workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  return {
    creates: events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'rtgCreateVideoTask')
      .length,
    grants: events.filter((e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'slotGranted').length,
    waitingStage: events.filter((e) => {
      const stage = e.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields?.['ReviewStage'];
      return stage?.data && Buffer.from(stage.data).toString() === JSON.stringify('waiting_for_quota');
    }).length,
  };
}

describe('a create admitted at once (VIDEO_MAX_TASKS_IN_FLIGHT=2, slots free)', () => {
  it('costs its ask, the attempt that asked and its release: no grant signal, never waiting_for_quota', async () => {
    stack.sandbox.reset();
    const job = await startIndexed(textJob(`at once ${randomUUID()}`));
    expect((await job.result()).state).toBe('succeeded');
    const admission = (await job.query(progressQuery)).admission!;
    expect(admission.admittedAt).toBe(admission.waitingSince);
    expect(await historyOf(job.workflowId)).toEqual({ creates: 2, grants: 0, waitingStage: 0 });
    expect(await gateMessagesOf(admission.requestId)).toEqual({ asks: 1, releases: 1 });
    expect(await inFlight()).toBe(0);
    expect(stack.sandbox.videoTasks()).toHaveLength(1);
  });

  it('compared with a job that finds both slots held: it waits (indexed), is granted, creates again', async () => {
    stack.sandbox.reset();
    const run = randomUUID();
    const holders = [
      await stack.start(textJob(`holder ${run} a`, {}, 3_000)),
      await stack.start(textJob(`holder ${run} b`, {}, 3_000)),
    ];
    await until(async () => (await inFlight()) === 2, 'both slots held');
    const waiting = await startIndexed(textJob(`waits ${run}`));
    expect((await waiting.result()).state).toBe('succeeded');
    await Promise.all(holders.map((h) => h.result()));
    expect(await historyOf(waiting.workflowId)).toEqual({ creates: 2, grants: 1, waitingStage: 1 });
    const { requestId } = (await waiting.query(progressQuery)).admission!;
    expect(await gateMessagesOf(requestId)).toEqual({ asks: 1, releases: 1 });
  });

  it('a create refused for good (400): the run held its slot and gives it back as it fails', async () => {
    stack.sandbox.reset();
    stack.sandbox.addFault({ operation: 'video.create', times: 1, fault: { type: 'status', status: 400 } });
    const job = await stack.start(textJob(`rejected ${randomUUID()}`));
    expect((await failureOf(job)).type).toBe('VideoRequestRejected');
    const { requestId, admittedAt } = (await job.query(progressQuery)).admission!;
    expect(admittedAt).toBeDefined();
    expect(await gateMessagesOf(requestId)).toEqual({ asks: 1, releases: 1 });
    expect(await inFlight()).toBe(0);
    expect(stack.sandbox.videoTasks()).toHaveLength(0);
  });

  it('a 503 is retried on the slot the run holds: one ask, one task, slot free at the end', async () => {
    stack.sandbox.reset();
    stack.sandbox.addFault({ operation: 'video.create', times: 1, fault: { type: 'status', status: 503 } });
    const job = await stack.start(textJob(`retried ${randomUUID()}`));
    expect((await job.result()).state).toBe('succeeded');
    const { requestId } = (await job.query(progressQuery)).admission!;
    expect(await gateMessagesOf(requestId)).toEqual({ asks: 1, releases: 1 });
    expect(await historyOf(job.workflowId)).toMatchObject({ creates: 2, grants: 0 });
    expect(stack.sandbox.requests().filter((r) => r.operation === 'video.create')).toHaveLength(2);
    expect(stack.sandbox.videoTasks()).toHaveLength(1);
    expect(await inFlight()).toBe(0);
  });

  it('an ambiguous create keeps its slot while a task may exist, and gives it back when the job ends', async () => {
    stack.sandbox.reset();
    stack.sandbox.addFault({ operation: 'video.create', times: 1, fault: { type: 'status', status: 500 } });
    const job = await stack.start(
      textJob(`ambiguous ${randomUUID()}`, { timing: { ...fastTiming, generationTimeoutMs: 4_000 } }),
    );
    await until(async () => (await job.query(progressQuery)).admission?.admittedAt !== undefined, 'the held slot');
    expect(await inFlight()).toBe(1);
    expect((await failureOf(job)).type).toBe('SubmitUnconfirmed');
    const { requestId } = (await job.query(progressQuery)).admission!;
    expect(await gateMessagesOf(requestId)).toEqual({ asks: 1, releases: 1 });
    expect(await inFlight()).toBe(0);
  });

  it('opted in to resubmitting: the resubmit goes out on the slot the ambiguous create kept', async () => {
    stack.sandbox.reset();
    stack.sandbox.addFault({ operation: 'video.create', times: 1, fault: { type: 'status', status: 500 } });
    const job = await stack.start(
      textJob(`resubmitted ${randomUUID()}`, {
        resubmitOnAmbiguity: true,
        timing: { ...fastTiming, createAmbiguityGraceMs: 1_000 },
      }),
    );
    expect((await job.result()).state).toBe('succeeded');
    const { requestId } = (await job.query(progressQuery)).admission!;
    // The attempt that asked, the ambiguous create, and the resubmit: one ask for all of them.
    expect(await historyOf(job.workflowId)).toMatchObject({ creates: 3, grants: 0 });
    expect(await gateMessagesOf(requestId)).toEqual({ asks: 1, releases: 1 });
    expect(stack.sandbox.videoTasks()).toHaveLength(1);
    expect(await inFlight()).toBe(0);
  });
});
