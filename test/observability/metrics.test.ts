// The worker and the receiver as processes, on the dev server against the sandbox: jobs run, then both
// /metrics endpoints are scraped. The SDK's metrics and ours are there, and our counts equal what the
// sandbox's request log and callback log show. Every log line is JSON; activity lines carry the ids.
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { freePort } from '../../src/dev/temporal-dev-server.js';
import { METRIC_NAMES } from '../../src/observability/metrics.js';
import { JOB_METRIC_NAMES } from '../../src/workflows/job-metrics.js';
import { startSandbox } from 'temporal-review-video-sandbox';
import type { Sandbox } from 'temporal-review-video-sandbox';
import { countOps, imageJob } from '../support/stack.js';
import { temporalAddress, testClient } from '../support/temporal.js';
import { sandboxServiceEnv } from '../support/services-stack.js';
import { startWorkerProcess, type WorkerProcess } from '../support/worker-process.js';
import { jsonLines, metricNames, metricSum, startReceiverProcess, type ReceiverProcess } from './processes.js';

let sandbox: Sandbox;
let receiver: ReceiverProcess;
let worker: WorkerProcess;
let workerMetrics: string;
let receiverUrl: string;
const taskQueue = `obs-${randomUUID()}`;
const secret = `cb-secret-${randomBytes(16).toString('hex')}`;

async function get(url: string) {
  const res = await fetch(url);
  return { status: res.status, text: await res.text() };
}

async function receiverMetricsAgreeingWith(sb: Sandbox, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const log = sb.callbacks();
    const r = await get(`${receiverUrl}/metrics`);
    const sent = log.filter((c) => c.httpStatus !== undefined).length;
    if (metricSum(r.text, METRIC_NAMES.callbacksReceived) === sent || Date.now() > deadline) return { r, log };
    await new Promise((res) => setTimeout(res, 200));
  }
}

beforeAll(async () => {
  sandbox = await startSandbox({ allowPrivateUrls: true });
  const temporal = { TEMPORAL_ADDRESS: temporalAddress(), TEMPORAL_NAMESPACE: inject('temporalNamespace') };
  const receiverPort = await freePort();
  receiverUrl = `http://127.0.0.1:${receiverPort}`;
  receiver = await startReceiverProcess({
    ...temporal,
    CALLBACK_HOST: '127.0.0.1',
    CALLBACK_PORT: String(receiverPort),
    CALLBACK_SECRET: secret,
    LOG_FORMAT: 'json',
  });
  workerMetrics = `127.0.0.1:${await freePort()}`;
  worker = await startWorkerProcess({
    ...temporal,
    TEMPORAL_TASK_QUEUE: taskQueue,
    ...sandboxServiceEnv(sandbox),
    CALLBACK_PUBLIC_URL: receiverUrl,
    CALLBACK_SECRET: secret,
    PROMETHEUS_BIND_ADDRESS: workerMetrics,
    LOG_FORMAT: 'json',
    LOG_LEVEL: 'debug',
  });
}, 60_000);

afterAll(async () => {
  await worker?.stop();
  receiver?.kill('SIGTERM');
  await receiver?.exited;
  await sandbox?.close();
});

describe('metrics, health and logs of the worker and the receiver processes', () => {
  it('counts every API call and callback the sandbox saw, next to the SDK metrics', async () => {
    const client = await testClient();
    const handles = await Promise.all(
      [1, 2, 3].map((i) =>
        client.workflow.start('ReviewThenGenerate', {
          taskQueue,
          workflowId: `obs-${i}-${randomUUID()}`,
          args: [imageJob(`https://cdn.example.com/people/obs-${i}.jpg`)],
        }),
      ),
    );
    await Promise.all(handles.map((h) => h.result()));
    // Counters are exported as they are scraped; give the last activity's completion a moment.
    await new Promise((r) => setTimeout(r, 500));

    const w = await get(`http://${workerMetrics}/metrics`);
    expect(w.status).toBe(200);
    const names = metricNames(w.text);
    // The SDK's own (Core's exporter, seconds, _total on counters).
    expect(names).toContain('temporal_workflow_completed_total');
    expect(names).toContain('temporal_activity_schedule_to_start_latency_seconds_bucket');
    expect(names).toContain('temporal_worker_task_slots_used');
    // Ours, equal to the sandbox's request log per endpoint and status class.
    const ops = countOps(sandbox);
    expect(Object.keys(ops).length).toBeGreaterThanOrEqual(4);
    for (const [operation, count] of Object.entries(ops)) {
      expect(metricSum(w.text, METRIC_NAMES.apiRequests, { endpoint: operation }), operation).toBe(count);
      expect(metricSum(w.text, `${METRIC_NAMES.httpDuration}_count`, { endpoint: operation })).toBe(count);
    }
    const ok = sandbox.requests().filter((r) => r.status >= 200 && r.status < 300).length;
    expect(metricSum(w.text, METRIC_NAMES.apiRequests, { status_class: '2xx' })).toBe(ok);
    // Job-level, from the workflow metric meter: one per job, and each stage's duration. Never again on
    // replay; but a workflow task that ran again after it failed or timed out (a signal came in as the job
    // ended, a loaded machine) emitted its metrics again: at most once more per such task.
    let ranAgain = 0;
    for (const h of handles) {
      const events = (await h.fetchHistory()).events ?? [];
      ranAgain += events.filter(
        (e) => e.workflowTaskFailedEventAttributes || e.workflowTaskTimedOutEventAttributes,
      ).length;
    }
    for (const [name, labels] of [
      [JOB_METRIC_NAMES.jobs, { outcome: 'succeeded' }],
      [`${JOB_METRIC_NAMES.stageDuration}_count`, { stage: 'review' }],
      [`${JOB_METRIC_NAMES.stageDuration}_count`, { stage: 'generation' }],
    ] as const) {
      const count = metricSum(w.text, name, labels);
      expect(count, `${name} ${JSON.stringify(labels)}`).toBeGreaterThanOrEqual(3);
      expect(count, `${name} ${JSON.stringify(labels)}`).toBeLessThanOrEqual(3 + ranAgain);
    }
    expect(w.text).not.toContain(sandbox.apiKey);
    expect(w.text).not.toMatch(/cdn\.example\.com|obs-\d-/);

    // A task's callback can still be on its way when the job has ended (the job polled, or had its answer
    // from an earlier callback): read the sandbox's log first, then scrape, until both tell the same count.
    const { r, log } = await receiverMetricsAgreeingWith(sandbox);
    expect(r.status).toBe(200);
    const delivered = log.filter((c) => c.outcome === 'delivered');
    expect(delivered.length).toBeGreaterThan(0);
    const sent = log.filter((c) => c.httpStatus !== undefined).length;
    expect(metricSum(r.text, METRIC_NAMES.callbacksReceived)).toBe(sent);
    // Every final state became a signal; a `running` callback may have been answered `not needed` (the run
    // has its task) or `ignored (run closed)` (the run had ended by the receiver's second look):
    // src/callbacks/forwarding.ts.
    const signalled = metricSum(r.text, METRIC_NAMES.callbacksConfirmed);
    const declined =
      metricSum(r.text, METRIC_NAMES.callbacksRejected, { reason: 'not_needed' }) +
      metricSum(r.text, METRIC_NAMES.callbacksRejected, { reason: 'run_closed' });
    expect(signalled + declined).toBe(delivered.length);
    expect(signalled).toBeGreaterThanOrEqual(delivered.filter((c) => c.status !== 'running').length);
    expect(metricSum(r.text, `${METRIC_NAMES.callbackSignalDuration}_count`)).toBe(signalled);
  }, 120_000);

  it('answers /healthz and /readyz on the metrics port of the worker and on the receiver', async () => {
    expect((await get(`http://${workerMetrics}/healthz`)).status).toBe(200);
    expect(await get(`http://${workerMetrics}/readyz`)).toEqual({ status: 200, text: 'ready\n' });
    expect((await get(`${receiverUrl}/healthz`)).status).toBe(200);
    expect((await get(`${receiverUrl}/readyz`)).status).toBe(200);
  });

  it('writes one JSON object a line; activity lines carry the workflow id, run id and activity type', () => {
    const lines = jsonLines(worker.output());
    for (const l of lines)
      expect(l).toMatchObject({ time: expect.any(String), level: expect.any(String), msg: expect.any(String) });
    const activity = lines.filter((l) => l.sdkComponent === 'activity' || l.activityType !== undefined);
    expect(activity.length).toBeGreaterThan(0);
    for (const l of activity) {
      expect(l).toMatchObject({
        workflowId: expect.any(String),
        workflowRunId: expect.any(String),
        activityType: expect.stringMatching(/^rtg/),
      });
    }
    expect(lines.some((l) => typeof l.msg === 'string' && l.msg.startsWith('worker: task queue'))).toBe(true);
    expect(worker.output()).not.toContain(sandbox.apiKey);
    const receiverLines = jsonLines(receiver.output());
    expect(
      receiverLines.some((l) => typeof l.msg === 'string' && l.msg.startsWith('callback receiver listening')),
    ).toBe(true);
  });
});
