// GenerateAndPoll's tasks count against the same video quota as ReviewThenGenerate's (docs/operations.md,
// "Provider quotas"): both go through the account's gate, so jobs of both kinds started at once never
// take the provider past the cap.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { defaultVideoQuotaKey } from '../../src/config/admission.js';
import { admissionGateId, gateStateQuery } from '../../src/contract/index.js';
import { generateAndPollProgressQuery } from '../../src/job/generate-and-poll-definitions.js';
import { textJob, withStack, type Stack } from '../support/stack.js';
import { testClient } from '../support/temporal.js';
import { until } from '../support/until.js';

let stack: Stack;
withStack(
  { sandbox: { videoDurationMs: 1_500 }, admissionEnv: { VIDEO_MAX_TASKS_IN_FLIGHT: '2' } },
  (s) => (stack = s),
);

const quotaKey = () => defaultVideoQuotaKey(stack.sandbox.videoBaseUrl);

function startGenerateAndPoll(prompt: string) {
  return stack.startGenerateAndPoll({
    entryPoint: 'unifiedVideo',
    body: { model: 'video-model-1', prompt },
    timing: { pollIntervalMs: 200, minQueryIntervalMs: 0 },
  });
}

describe('GenerateAndPoll under VIDEO_MAX_TASKS_IN_FLIGHT=2', () => {
  it('6 GenerateAndPoll and 2 ReviewThenGenerate jobs at once: all succeed, never over 2 tasks, no 429', async () => {
    stack.sandbox.reset();
    stack.sandbox.setQuotas({ videoMaxTasksInFlight: 2 });
    const run = randomUUID().slice(0, 8);
    const gateway = await Promise.all(Array.from({ length: 6 }, (_, i) => startGenerateAndPoll(`gap ${run} ${i}`)));
    const jobs = await Promise.all([0, 1].map((i) => stack.start(textJob(`rtg ${run} ${i}`, { callbacks: true }))));
    // Some wait for the quota, in their own stage.
    await until(
      async () =>
        (await Promise.all(gateway.map((h) => h.query(generateAndPollProgressQuery)))).some(
          (p) => p.stage === 'waiting_for_quota' && p.quotaKey === quotaKey(),
        ),
      'a GenerateAndPoll job to wait for the quota',
    );
    for (const h of gateway) expect((await h.result()).state).toBe('succeeded');
    for (const h of jobs) expect((await h.result()).state).toBe('succeeded');
    const stats = stack.sandbox.quotaStats().video;
    expect(stats).toMatchObject({ peakInFlight: 2, refused: 0, admitted: 8 });
    // Every slot came back: the GenerateAndPoll runs released theirs when their tasks were final.
    const gate = (await testClient()).workflow.getHandle(admissionGateId(quotaKey()));
    expect(await gate.query(gateStateQuery)).toMatchObject({ inFlight: 0, waiting: 0 });
    // One create request per job: a job that waited sent nothing before its grant.
    const requests = stack.sandbox.requests();
    const creates = [
      requests.filter((r) => r.gateway === 'create'),
      requests.filter((r) => r.operation === 'video.create'),
    ];
    expect(creates.map((c) => c.length)).toEqual([6, 2]);
  });
});
