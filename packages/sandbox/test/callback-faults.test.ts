// Callback faults, observed by a real receiver: dropped, duplicated, delayed and reordered deliveries.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../src/index.js';
import {
  createBody,
  Http,
  reviewHeaders,
  sleep,
  startReceiver,
  videoHeaders,
  waitFor,
} from './support/sandbox-http.js';

let sb: Sandbox;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
const http = new Http();
beforeAll(async () => {
  // Callbacks go to a receiver on loopback (packages/sandbox/test/public-addresses.test.ts covers the refusal).
  sb = await startSandbox({ reviewDurationMs: 100, videoDurationMs: 300, allowPrivateUrls: true });
});
afterAll(async () => {
  await http.close();
  await sb.close();
});
beforeEach(async () => {
  sb.reset();
  receiver = await startReceiver();
});
afterEach(() => receiver.close());

const createWithCallback = async (path = '/video') => {
  const r = await http.call('POST', `${sb.videoBaseUrl}/v1/task/create`, {
    headers: videoHeaders(sb),
    json: createBody(undefined, { callback_url: `${receiver.url}${path}` }),
  });
  return r.json.id as string;
};
const submitWithCallback = async (url: string) => {
  const r = await http.call('POST', `${sb.reviewBaseUrl}/api/asset/upload/async`, {
    headers: reviewHeaders(sb),
    json: { images: [url], callback_url: `${receiver.url}/review` },
  });
  return r.json.task_id as string;
};
const statuses = () => receiver.received.map((r) => `${r.path}:${r.body.status}`);

describe('callback faults', () => {
  it('drop: nothing is sent, the attempt is logged as dropped', async () => {
    sb.setCallbackFault({ kind: 'review', mode: 'drop' });
    const taskId = await submitWithCallback('https://cdn.example.com/a.jpg');
    await waitFor(() => sb.callbacks().length === 1, 2_000, 'drop logged');
    await sleep(100);
    expect(receiver.received).toHaveLength(0);
    expect(sb.callbacks()[0]).toMatchObject({
      kind: 'review',
      taskId,
      status: 'completed',
      outcome: 'dropped',
      fault: 'drop',
    });
    // Used once: the next task calls back normally.
    await submitWithCallback('https://cdn.example.com/b.jpg');
    await waitFor(() => receiver.received.length === 1, 2_000, 'normal callback after the drop');
  });

  it('duplicate: the same payload is delivered twice', async () => {
    sb.setCallbackFault({ kind: 'review', mode: 'duplicate' });
    await submitWithCallback('https://cdn.example.com/a.jpg');
    await waitFor(() => receiver.received.length === 2 && sb.callbacks().length === 2, 2_000, 'two deliveries');
    expect(receiver.received[0]!.body).toEqual(receiver.received[1]!.body);
    expect(sb.callbacks().map((c) => [c.outcome, c.fault])).toEqual([
      ['delivered', 'duplicate'],
      ['delivered', 'duplicate'],
    ]);
  });

  it('delay: the delivery comes delayMs late', async () => {
    sb.setCallbackFault({ kind: 'video', mode: 'delay', delayMs: 500 });
    await createWithCallback();
    // running is delayed past succeeded: a late callback can arrive after a newer one.
    await waitFor(() => receiver.received.length === 2 && sb.callbacks().length === 2, 3_000, 'both video callbacks');
    expect(statuses()).toEqual(['/video:succeeded', '/video:running']);
    const running = sb.callbacks().find((c) => c.status === 'running')!;
    expect(running.fault).toBe('delay');
    expect(running.at - sb.videoTasks()[0]!.createdAt).toBeGreaterThanOrEqual(500);
  });

  it('reorder: the video running callback arrives after succeeded', async () => {
    sb.setCallbackFault({ kind: 'video', mode: 'reorder' });
    await createWithCallback();
    await waitFor(() => receiver.received.length === 2 && sb.callbacks().length === 2, 3_000, 'both video callbacks');
    expect(statuses()).toEqual(['/video:succeeded', '/video:running']);
    expect(sb.callbacks().map((c) => [c.status, c.fault])).toEqual([
      ['succeeded', undefined],
      ['running', 'reorder'],
    ]);
  });

  it('reorder only swaps deliveries to the same URL', async () => {
    sb.setCallbackFault({ kind: 'video', mode: 'reorder' });
    await createWithCallback('/a');
    await createWithCallback('/b');
    await waitFor(() => receiver.received.length === 4, 3_000, 'four video callbacks');
    expect(statuses().filter((s) => s.startsWith('/a'))).toEqual(['/a:succeeded', '/a:running']);
    expect(statuses().filter((s) => s.startsWith('/b'))).toEqual(['/b:running', '/b:succeeded']);
  });

  it('a lone held delivery is released after the hold', async () => {
    sb.setCallbackFault({ kind: 'review', mode: 'reorder', delayMs: 300 });
    const started = Date.now();
    await submitWithCallback('https://cdn.example.com/a.jpg');
    await waitFor(() => receiver.received.length === 1, 3_000, 'held review callback');
    expect(receiver.received[0]!.at - started).toBeGreaterThanOrEqual(300);
  });

  it('faults are per kind and used in insertion order, `times` times', async () => {
    sb.setCallbackFault({ kind: 'video', mode: 'drop', times: 2 });
    sb.setCallbackFault({ kind: 'video', mode: 'duplicate', times: 1 });
    await submitWithCallback('https://cdn.example.com/a.jpg'); // review: untouched
    await createWithCallback('/v1'); // running dropped, succeeded dropped
    await waitFor(() => sb.callbacks().filter((c) => c.kind === 'video').length === 2, 3_000, 'two dropped');
    await createWithCallback('/v2'); // running duplicated, succeeded normal
    await waitFor(() => receiver.received.filter((r) => r.path === '/v2').length === 3, 3_000, 'v2 deliveries');
    expect(statuses().filter((s) => s.startsWith('/v2'))).toEqual(['/v2:running', '/v2:running', '/v2:succeeded']);
    expect(statuses().filter((s) => s.startsWith('/v1'))).toEqual([]);
    expect(statuses()).toContain('/review:completed');
  });

  it('close() stops held and delayed deliveries (no leaked timers, nothing sent afterwards)', async () => {
    const other = await startSandbox({ videoDurationMs: 100, allowPrivateUrls: true });
    other.setCallbackFault({ kind: 'video', mode: 'delay', delayMs: 400, times: Infinity });
    await http.call('POST', `${other.videoBaseUrl}/v1/task/create`, {
      headers: videoHeaders(other),
      json: createBody(undefined, { callback_url: `${receiver.url}/late` }),
    });
    await sleep(150);
    await other.close();
    await sleep(500);
    expect(receiver.received).toHaveLength(0);
  });
});
