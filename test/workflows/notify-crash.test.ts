// A worker killed while it delivers a notification (issue 27): the job runs on our worker in a child
// process (NOTIFY_* from its environment), which is SIGKILLed while the receiver holds its POST. Another
// worker takes the delivery over once the attempt's time-out (30 s) has passed: the notification arrives
// at least once, every copy with the one webhook-id, and is never lost.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { newNotifySecret, verifyNotification } from '../../src/index.js';
import { startWebhookReceiver, type WebhookReceiver } from 'temporal-review-video-sandbox';
import { progressQuery } from '../../src/job/definitions.js';
import type { ReviewThenGenerateNotification } from '../../src/workflows/notification.js';
import { imageJob, withStack, type Stack } from '../support/stack.js';
import { temporalAddress, testClient } from '../support/temporal.js';
import { sandboxServiceEnv } from '../support/services-stack.js';
import { startWorkerProcess } from '../support/worker-process.js';

const KEY = newNotifySecret();
let stack: Stack;
let receiver: WebhookReceiver;
withStack(
  {
    noWorker: true,
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

async function until(check: () => boolean | Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('a worker killed during a delivery', () => {
  it('the delivery is retried by another worker with the same webhook-id: at least once, never lost', async () => {
    const worker = await startWorkerProcess({
      TEMPORAL_ADDRESS: temporalAddress(),
      TEMPORAL_NAMESPACE: inject('temporalNamespace'),
      TEMPORAL_TASK_QUEUE: stack.taskQueue,
      ...sandboxServiceEnv(stack.sandbox),
      NOTIFY_SECRET: KEY,
    });
    // The receiver takes the first POST but holds its answer for 8 s: the worker dies meanwhile.
    receiver.addFault({ mode: 'delay', delayMs: 8_000 });
    const handle = await stack.start(
      imageJob(undefined, { callbacks: false, notify: { url: receiver.url } }),
      `rtg-crash-${randomUUID()}`,
    );
    expect((await handle.result()).state).toBe('succeeded');
    await until(() => receiver.held() === 1);
    process.kill(worker.pid, 'SIGKILL');
    await worker.stop();

    await stack.startWorker();
    const id = (await handle.query(progressQuery)).notifications![0]!.workflowId;
    const child = (await testClient()).workflow.getHandle<typeof ReviewThenGenerateNotification>(id);
    stack.handles.push(child);
    expect(await child.result()).toMatchObject({ state: 'delivered', attempts: 2 });

    const got = receiver.received();
    expect(got).toHaveLength(2);
    expect(got.every((r) => r.id === id && r.taken)).toBe(true);
    expect(receiver.unique()).toHaveLength(1);
    for (const r of got) expect(verifyNotification(r.headers, r.body, KEY).data.workflowId).toBe(handle.workflowId);
  });
});
