// A quota configured above the provider's real capacity (issue 26): the workers are told 4 tasks in
// flight, the sandbox allows 2 and answers 429 beyond. A refused create is back-pressure, not a failure:
// its slot goes back to the gate, which grants no more than it still holds until a task ends. Counts only.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { defaultVideoQuotaKey } from '../../src/config/admission.js';
import { admissionGateId, gateStateQuery } from '../../src/contract/index.js';
import { progressQuery } from '../../src/job/definitions.js';
import { textJob, withStack, type Stack } from '../support/stack.js';
import { testClient } from '../support/temporal.js';

let stack: Stack;
withStack({ workerProcesses: 1, admissionEnv: { VIDEO_MAX_TASKS_IN_FLIGHT: '4' } }, (s) => (stack = s));

describe('VIDEO_MAX_TASKS_IN_FLIGHT=4 against a provider that allows 2', () => {
  it('24 jobs all succeed, with one 429 per 2 slots released at most and no create retried', async () => {
    stack.sandbox.reset();
    stack.sandbox.setQuotas({ videoMaxTasksInFlight: 2 });
    const run = randomUUID().slice(0, 8);
    stack.sandbox.setVideoOutcome({ promptIncludes: run }, 'succeeded', 1_000);
    const handles = await Promise.all(Array.from({ length: 24 }, (_, i) => stack.start(textJob(`over ${run} ${i}`))));
    const results = await Promise.all(handles.map((h) => h.result()));
    expect(results.map((r) => r.state)).toEqual(Array(24).fill('succeeded'));

    const stats = stack.sandbox.quotaStats().video;
    expect(stats.peakInFlight).toBe(2);
    expect(stats.admitted).toBe(24);
    expect(stats.refused).toBeGreaterThan(0); // the configured 4 was tried
    // The first 4 grants cost 2 refusals; then one probe per 2 releases (the ceiling learnt): 24 / 2.
    expect(stats.refused).toBeLessThanOrEqual(2 + 24 / 2);

    const client = await testClient();
    let refusals = 0;
    for (const h of handles) {
      refusals += (await h.query(progressQuery)).admission?.refusals ?? 0;
      const events = (await client.workflow.getHandle(h.workflowId).fetchHistory()).events ?? [];
      // A refusal is an answer, not a failed attempt: no create was retried by the retry policy.
      const attempts = events.map((e) => e.activityTaskStartedEventAttributes?.attempt).filter((a) => a !== undefined);
      expect(attempts.every((a) => a === 1)).toBe(true);
    }
    expect(refusals).toBe(stats.refused);
    const gate = await client.workflow
      .getHandle(admissionGateId(defaultVideoQuotaKey(stack.sandbox.videoBaseUrl)))
      .query(gateStateQuery);
    expect(gate).toMatchObject({ capacity: 4, inFlight: 0, waiting: 0 });
  });
});
