// The notification metrics (issue 27, docs/webhooks.md) on our worker's /metrics, the worker running as a
// process with NOTIFY_SECRET from its environment: a receiver that fails once, then takes the delivery,
// is counted as one 5xx attempt, one 2xx attempt and one notification delivered, with its latency.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { NOTIFY_METRIC_NAMES } from '../../src/activities/notify.js';
import { freePort } from '../../src/dev/temporal-dev-server.js';
import { newNotifySecret } from '../../src/index.js';
import { startSandbox, startWebhookReceiver, type WebhookReceiver } from 'temporal-review-video-sandbox';
import type { Sandbox } from 'temporal-review-video-sandbox';
import { progressQuery } from '../../src/job/definitions.js';
import { NOTIFICATION_METRIC_NAMES } from '../../src/workflows/notification.js';
import { imageJob } from '../support/stack.js';
import { temporalAddress, testClient } from '../support/temporal.js';
import { sandboxServiceEnv } from '../support/services-stack.js';
import { startWorkerProcess, type WorkerProcess } from '../support/worker-process.js';
import { metricNames, metricSum } from './processes.js';

let sandbox: Sandbox;
let receiver: WebhookReceiver;
let worker: WorkerProcess;
let metricsAddress: string;
const taskQueue = `notify-obs-${randomUUID()}`;

beforeAll(async () => {
  sandbox = await startSandbox({ allowPrivateUrls: true });
  receiver = await startWebhookReceiver();
  metricsAddress = `127.0.0.1:${await freePort()}`;
  worker = await startWorkerProcess({
    TEMPORAL_ADDRESS: temporalAddress(),
    TEMPORAL_NAMESPACE: inject('temporalNamespace'),
    TEMPORAL_TASK_QUEUE: taskQueue,
    ...sandboxServiceEnv(sandbox),
    NOTIFY_SECRET: newNotifySecret(),
    PROMETHEUS_BIND_ADDRESS: metricsAddress,
  });
}, 60_000);

afterAll(async () => {
  await worker?.stop();
  await receiver?.close();
  await sandbox?.close();
});

async function scrapeUntil(done: (text: string) => boolean, timeoutMs = 10_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const text = await (await fetch(`http://${metricsAddress}/metrics`)).text();
    if (done(text) || Date.now() > deadline) return text;
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('notification metrics', () => {
  it('count attempts by outcome, notifications delivered, and their latency', async () => {
    receiver.addFault({ mode: 'fail', status: 502 });
    const client = await testClient();
    const handle = await client.workflow.start('ReviewThenGenerate', {
      taskQueue,
      workflowId: `notify-obs-${randomUUID()}`,
      args: [imageJob(undefined, { callbacks: false, notify: { url: receiver.url } })],
    });
    await handle.result();
    const progress = await handle.query(progressQuery);
    await client.workflow.getHandle(progress.notifications![0]!.workflowId).result();

    const delivered = { event: 'succeeded', outcome: 'delivered' };
    const text = await scrapeUntil((t) => metricSum(t, NOTIFICATION_METRIC_NAMES.notifications, delivered) === 1);
    expect(metricSum(text, NOTIFICATION_METRIC_NAMES.notifications, delivered)).toBe(1);
    expect(metricSum(text, NOTIFY_METRIC_NAMES.attempts, { event: 'succeeded', outcome: '5xx' })).toBe(1);
    expect(metricSum(text, NOTIFY_METRIC_NAMES.attempts, { event: 'succeeded', outcome: '2xx' })).toBe(1);
    expect(metricSum(text, `${NOTIFICATION_METRIC_NAMES.latency}_count`, { event: 'succeeded' })).toBe(1);
    expect(metricNames(text)).toContain(`${NOTIFICATION_METRIC_NAMES.latency}_bucket`);
    expect(receiver.received().map((r) => r.status)).toEqual([502, 204]);
  });
});
