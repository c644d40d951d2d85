// Only a daily budget set (no cap on tasks in flight or creates per minute): every create still asks the
// gate, which charges a job without a tenant to `default` (docs/operations.md, "Provider quotas"). A
// GenerateAndPoll job has no tenant; a ReviewThenGenerate job may have none either.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { defaultVideoQuotaKey } from '../../src/config/admission.js';
import { admissionGateId, gateStateQuery } from '../../src/contract/index.js';
import { generateAndPollProgressQuery } from '../../src/job/generate-and-poll-definitions.js';
import { withStack, type Stack } from '../support/stack.js';
import { testClient } from '../support/temporal.js';
import { until } from '../support/until.js';

let stack: Stack;
withStack(
  { sandbox: { videoDurationMs: 300 }, admissionEnv: { VIDEO_DAILY_TASKS_BY_TENANT: 'default:1' } },
  (s) => (stack = s),
);

function startGenerateAndPoll(prompt: string) {
  return stack.startGenerateAndPoll({
    entryPoint: 'unifiedVideo',
    body: { model: 'video-model-1', prompt },
    timing: { pollIntervalMs: 200, minQueryIntervalMs: 0 },
  });
}

describe('VIDEO_DAILY_TASKS_BY_TENANT=default:1 alone', () => {
  it('GenerateAndPoll asks the gate: charged to `default`, its second job of the day waits', async () => {
    stack.sandbox.reset();
    const run = randomUUID().slice(0, 8);
    const first = await startGenerateAndPoll(`budget ${run} first`);
    expect((await first.result()).state).toBe('succeeded');
    const second = await startGenerateAndPoll(`budget ${run} second`);
    await until(
      async () => (await second.query(generateAndPollProgressQuery)).stage === 'waiting_for_quota',
      'the second job to wait for the next day',
    );
    const gate = (await testClient()).workflow.getHandle(
      admissionGateId(defaultVideoQuotaKey(stack.sandbox.videoBaseUrl)),
    );
    expect(await gate.query(gateStateQuery)).toMatchObject({
      budgets: { default: { tasks: 1 } },
      spentToday: { default: { tasks: 1 } },
      waiting: 1,
    });
    expect(stack.sandbox.requests().filter((r) => r.gateway === 'create')).toHaveLength(1);
    await second.cancel();
    await until(async () => (await gate.query(gateStateQuery)).waiting === 0, 'the cancelled job to withdraw');
    await gate.terminate('test over');
  });
});
