// When a GenerateAndPoll's slot of the video quota (VIDEO_MAX_TASKS_IN_FLIGHT=2) is given back and taken
// again (docs/operations.md, "Provider quotas"): a slot is given back only when its task is final, and a
// create the provider refused (429) goes out again only on a new grant, after the refusal's Retry-After.
import { randomUUID } from 'node:crypto';
import { CancelledFailure, WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { defaultVideoQuotaKey } from '../../src/config/admission.js';
import { admissionGateId, gateStateQuery } from '../../src/contract/index.js';
import { generateAndPollProgressQuery } from '../../src/job/generate-and-poll-definitions.js';
import type { GenerateAndPollInput } from '../../src/job/generate-and-poll-input.js';
import { withStack, type Stack } from '../support/stack.js';
import { testClient } from '../support/temporal.js';
import { until } from '../support/until.js';

let stack: Stack;
withStack(
  {
    // The create that hangs below must not time out on the client's side (that would be ambiguous).
    httpTimeoutMs: 20_000,
    admissionEnv: { VIDEO_MAX_TASKS_IN_FLIGHT: '2', ADMISSION_LEASE_MS: '5000' },
  },
  (s) => (stack = s),
);

const started: WorkflowHandle[] = [];
async function startGenerateAndPoll(prompt: string, durationMs: number) {
  stack.sandbox.setVideoOutcome({ promptIncludes: prompt }, 'succeeded', durationMs);
  const input: GenerateAndPollInput = {
    entryPoint: 'unifiedVideo',
    body: { model: 'video-model-1', prompt },
    timing: { pollIntervalMs: 200, minQueryIntervalMs: 0 },
  };
  const handle = await (
    await testClient()
  ).workflow.start('GenerateAndPoll', {
    taskQueue: stack.taskQueue,
    workflowId: `gap-slot-${randomUUID()}`,
    args: [input],
  });
  started.push(handle);
  return handle;
}
const stageOf = async (h: WorkflowHandle) => (await h.query(generateAndPollProgressQuery)).stage;
const gate = async () =>
  (await testClient()).workflow.getHandle(admissionGateId(defaultVideoQuotaKey(stack.sandbox.videoBaseUrl)));
const createsOf = (prompt: string) =>
  stack.sandbox.requests().filter((r) => r.gateway === 'create' && JSON.stringify(r.body).includes(prompt));

async function endAll() {
  for (const h of started.splice(0)) await h.terminate('test over').catch(() => undefined);
}

describe('GenerateAndPoll under VIDEO_MAX_TASKS_IN_FLIGHT=2, ADMISSION_LEASE_MS=5000', () => {
  it('a 429 after a lease check of the grant made in the gate answer waits out its Retry-After', async () => {
    stack.sandbox.reset();
    // The provider allows 1 task, and tells a refused create to come back in 3 s.
    stack.sandbox.setQuotas({ videoMaxTasksInFlight: 1, videoQuotaRetryAfter: 3 });
    const run = randomUUID().slice(0, 8);
    // Its task ends after 14 s: the gate, down to the 1 slot held at the refusal, grants the next then.
    const holder = await startGenerateAndPoll(`stale ${run} holder`, 14_000);
    await until(async () => (await stageOf(holder)) === 'polling', 'the holder to poll');
    // The next job is granted in the gate's answer (the worker allows 2); its create is answered after
    // 8 s, past its lease (5 s): the gate's lease check repeats the grant while the create is out.
    const refusedPrompt = `stale ${run} refused`;
    stack.sandbox.addFault({
      operation: 'other',
      match: { url: refusedPrompt },
      fault: { type: 'hang', ms: 8_000, commit: true },
    });
    const refused = await startGenerateAndPoll(refusedPrompt, 300);
    await until(async () => createsOf(refusedPrompt).length >= 2, 'the refused create to go out again', 30_000);
    const [first, second] = createsOf(refusedPrompt);
    expect(first!.status).toBe(429);
    expect(first!.answeredAt! - first!.at).toBeGreaterThanOrEqual(8_000);
    // Only a new grant sends it again: none before the Retry-After has passed, nor before the holder's end.
    expect(second!.at - first!.answeredAt!).toBeGreaterThanOrEqual(3_000);
    expect(second!.status).toBe(200);
    expect((await refused.result()).state).toBe('succeeded');
    await endAll();
  });

  it('a job cancelled while its task runs keeps its slot until the task is final', async () => {
    stack.sandbox.reset();
    const run = randomUUID().slice(0, 8);
    const holders = [
      await startGenerateAndPoll(`cancel ${run} a`, 4_000),
      await startGenerateAndPoll(`cancel ${run} b`, 4_000),
    ];
    for (const h of holders) await until(async () => (await stageOf(h)) === 'polling', 'both to poll');
    await holders[0]!.cancel();
    const next = await startGenerateAndPoll(`cancel ${run} next`, 300);
    expect((await next.result()).state).toBe('succeeded');
    expect((await holders[1]!.result()).state).toBe('succeeded');
    const cancelled = await holders[0]!.result().catch((e: unknown) => e);
    expect(cancelled).toBeInstanceOf(WorkflowFailedError);
    expect((cancelled as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
    // The cancelled job's task ran on: the next create waited for it to be final.
    expect(stack.sandbox.quotaStats().video.peakInFlight).toBe(2);
    expect(createsOf(`cancel ${run}`)).toHaveLength(3);
    await until(async () => (await (await gate()).query(gateStateQuery)).inFlight === 0, 'every slot to be back');
    started.splice(0);
  });
});
