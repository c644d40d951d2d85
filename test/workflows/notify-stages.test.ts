// `stage` notifications of a job that reaches a stage twice (issue 36, item 3): under a video quota, a
// create the provider refuses with 429 sends the job back to `waiting_for_quota`, and the gate's next grant
// to `creating` again. Each stage reached is its own notification, counted in its id
// (`stage-<stage>-<n>`, docs/webhooks.md): none is refused as a duplicate of an earlier one, every one is
// delivered, and a receiver that deduplicates by webhook-id keeps them all.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newNotifySecret, verifyNotification } from '../../src/index.js';
import { startWebhookReceiver, type WebhookReceiver } from 'temporal-review-video-sandbox';
import { progressQuery } from '../../src/job/definitions.js';
import type { ReviewThenGenerateNotification } from '../../src/workflows/notification.js';
import { imageJob, withStack, type Stack } from '../support/stack.js';
import { testClient } from '../support/temporal.js';

const KEY = newNotifySecret();
let stack: Stack;
let receiver: WebhookReceiver;
withStack(
  {
    admissionEnv: { VIDEO_MAX_TASKS_IN_FLIGHT: '2' },
    notify: { secrets: [KEY], allowPrivateUrls: true },
  },
  (s) => (stack = s),
);
beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await receiver?.close();
});

describe('stage notifications', () => {
  it('a stage reached twice (creating, waiting_for_quota, creating) is notified twice, with two ids', async () => {
    receiver.reset();
    stack.sandbox.reset();
    const marker = `twice-${randomUUID()}`;
    // The first create is refused for the provider's quota: the job waits for the gate's next grant.
    stack.sandbox.addFault({
      operation: 'video.create',
      match: { url: marker },
      fault: { type: 'status', status: 429, retryAfter: '1' },
    });
    const input = imageJob(undefined, { notify: { url: receiver.url, events: ['stage', 'succeeded'] } });
    (input.task.content as Array<{ text?: string }>)[0]!.text = `a video ${marker}`;
    const handle = await stack.start(input);
    expect((await handle.result()).state).toBe('succeeded');

    const { notifications } = await handle.query(progressQuery);
    const key = (id: string) => id.slice(`${handle.workflowId}/notify/`.length).split('/')[0];
    expect(notifications!.map((n) => [n.state, key(n.workflowId)])).toEqual([
      ['scheduled', 'stage-reviewing-1'],
      ['scheduled', 'stage-creating-1'],
      ['scheduled', 'stage-waiting_for_quota-1'],
      ['scheduled', 'stage-creating-2'],
      ['scheduled', 'stage-generating-1'],
      ['scheduled', 'succeeded'],
    ]);
    const client = await testClient();
    for (const n of notifications!) {
      const child = client.workflow.getHandle<typeof ReviewThenGenerateNotification>(n.workflowId);
      stack.handles.push(child);
      expect(await child.result()).toMatchObject({ state: 'delivered' });
    }
    const delivered = receiver.unique();
    expect(delivered.map((r) => r.id).sort()).toEqual(notifications!.map((n) => n.workflowId).sort());
    const stages = delivered
      .map((r) => verifyNotification(r.headers, r.body, KEY))
      .filter((p) => p.type === 'job.stage')
      .map((p) => p.data.stage);
    expect(stages.filter((s) => s === 'creating')).toHaveLength(2);
  });
});
