// A daily budget in seconds of video (VIDEO_DAILY_SECONDS_BY_TENANT, issue 36 item 4) against creates that
// do not say their length as a number: a native create without `duration` (the spec documents no default
// length, so its cost cannot be known) is refused before anything is sent, and a gateway create is charged
// the seconds its entry point bills by (vendor A's `duration: "5"` is 5 s, not 0). Counts only: creates the
// sandbox received, and what the gate spent.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { defaultVideoQuotaKey } from '../../src/config/admission.js';
import { admissionGateId, gateStateQuery } from '../../src/contract/index.js';
import { generateAndPollProgressQuery } from '../../src/job/generate-and-poll-definitions.js';
import { failureOf } from '../support/failures.js';
import { fastTiming, withStack, type Stack } from '../support/stack.js';
import { testClient } from '../support/temporal.js';
import { until } from '../support/until.js';

let stack: Stack;
withStack(
  {
    sandbox: { videoDurationMs: 300 },
    admissionEnv: { VIDEO_MAX_TASKS_IN_FLIGHT: '30', VIDEO_DAILY_SECONDS_BY_TENANT: 'sec-t:10,default:10' },
  },
  (s) => (stack = s),
);

const quotaKey = () => defaultVideoQuotaKey(stack.sandbox.videoBaseUrl);
const creates = (marker: string) =>
  stack.sandbox.requests().filter((r) => r.method === 'POST' && JSON.stringify(r.body ?? null).includes(marker));
async function gate() {
  return (await testClient()).workflow.getHandle(admissionGateId(quotaKey())).query(gateStateQuery);
}

describe('a daily budget of 10 seconds of video', () => {
  it('refuses a job with media to review and no duration at its start: no review is submitted either', async () => {
    stack.sandbox.reset();
    const run = randomUUID().slice(0, 8);
    const job = await stack.start({
      task: {
        model: 'video-model-1',
        content: [
          { type: 'text', text: `reviewed-no-duration ${run}` },
          { type: 'image_url', image_url: { url: `https://cdn.example.com/${run}/a.jpg` }, role: 'reference_image' },
        ],
      },
      review: {},
      fairnessKey: 'sec-t',
      timing: fastTiming,
    });
    const failure = await failureOf(job);
    expect(failure.type).toBe('InvalidInput');
    expect(failure.message).toContain('task.duration: is required: tenant sec-t has a daily budget in seconds');
    // Nothing was sent for it: neither the review it would have paid for, nor the create.
    expect(stack.sandbox.requests().filter((r) => JSON.stringify(r.body ?? null).includes(run))).toHaveLength(0);
  });

  it('refuses creates without a duration (InvalidInput naming task.duration) before sending any', async () => {
    stack.sandbox.reset();
    const run = randomUUID().slice(0, 8);
    const jobs = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        stack.start({
          task: { model: 'video-model-1', content: [{ type: 'text', text: `no-duration ${run} ${i}` }] },
          fairnessKey: 'sec-t',
          timing: fastTiming,
        }),
      ),
    );
    for (const job of jobs) {
      const failure = await failureOf(job);
      expect(failure.type).toBe('InvalidInput');
      expect(failure.message).toContain('task.duration: is required: tenant sec-t has a daily budget in seconds');
    }
    expect(creates(run)).toHaveLength(0);
    // A job that says its length is charged it.
    const counted = await stack.start({
      task: { model: 'video-model-1', content: [{ type: 'text', text: `counted ${run}` }], duration: 4 },
      fairnessKey: 'sec-t',
      timing: fastTiming,
    });
    expect((await counted.result()).state).toBe('succeeded');
    expect((await gate()).spentToday?.['sec-t']).toEqual({ tasks: 1, seconds: 4 });
  });

  it('charges GenerateAndPoll\'s vendor A create its `duration: "5"`: the third of three waits for the next day', async () => {
    stack.sandbox.reset();
    const run = randomUUID().slice(0, 8);
    const body = (i: number) => ({ model_name: 'vendor-a-v1', prompt: `five ${run} ${i}`, duration: '5' });
    const timing = { pollIntervalMs: 200, minQueryIntervalMs: 0 };
    const first = await Promise.all(
      [0, 1].map((i) => stack.startGenerateAndPoll({ entryPoint: 'vendorA', body: body(i), timing })),
    );
    for (const h of first) expect((await h.result()).state).toBe('succeeded');
    const third = await stack.startGenerateAndPoll({ entryPoint: 'vendorA', body: body(2), timing });
    await until(
      async () => (await third.query(generateAndPollProgressQuery)).stage === 'waiting_for_quota',
      'the third create to wait for the next day',
    );
    expect(creates(run)).toHaveLength(2);
    expect((await gate()).spentToday?.['default']).toEqual({ tasks: 2, seconds: 10 });
    // Its length unknown, a GenerateAndPoll create is refused too, naming the field of its entry point.
    const unknown = await stack.startGenerateAndPoll({
      entryPoint: 'unifiedVideo',
      body: { model: 'video-model-1', prompt: `unknown ${run}` },
      timing,
    });
    expect((await failureOf(unknown)).message).toContain('body.duration: is required: tenant default');
    expect(creates(`unknown ${run}`)).toHaveLength(0);
    await third.cancel();
    await until(async () => (await gate()).waiting === 0, 'the cancelled job to withdraw its request');
  });
});
