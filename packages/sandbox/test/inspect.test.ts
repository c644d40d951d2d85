// The /__sandbox/ inspection API on both ports: read the logs and tasks, script faults, verdicts and
// outcomes, cancel a review task, reset. No auth, and never logged as a service request.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../src/index.js';
import {
  createBody,
  Http,
  reviewHeaders,
  reviewToEnd,
  startReceiver,
  videoHeaders,
  waitFor,
} from './support/sandbox-http.js';

let sb: Sandbox;
const http = new Http();
beforeAll(async () => {
  // Callbacks go to a receiver on loopback (packages/sandbox/test/public-addresses.test.ts covers the refusal).
  sb = await startSandbox({ reviewDurationMs: 100, videoDurationMs: 200, allowPrivateUrls: true });
});
afterAll(async () => {
  await http.close();
  await sb.close();
});
beforeEach(() => sb.reset());

const post = (path: string, json: unknown, base = sb.videoBaseUrl) =>
  http.call('POST', `${base}/__sandbox${path}`, { json, headers: { 'content-type': 'application/json' } });
const get = (path: string, base = sb.reviewBaseUrl) => http.call('GET', `${base}/__sandbox${path}`);
const create = (body: unknown = createBody()) =>
  http.call('POST', `${sb.videoBaseUrl}/v1/task/create`, { headers: videoHeaders(sb), json: body });

describe('inspection API', () => {
  it('serves the request log on both ports without logging itself', async () => {
    await create();
    for (const base of [sb.videoBaseUrl, sb.reviewBaseUrl]) {
      const r = await get('/requests', base);
      expect(r.status).toBe(200);
      expect(r.json).toEqual([
        expect.objectContaining({ seq: expect.any(Number), service: 'video', operation: 'video.create', status: 200 }),
      ]);
    }
    expect(sb.requests()).toHaveLength(1);
  });

  it('adds faults ({ rule } or the rule itself; "Infinity" for every time) and refuses bad ones', async () => {
    expect(
      (
        await post('/faults', {
          rule: {
            operation: 'video.create',
            times: 'Infinity',
            fault: { type: 'status', status: 503, retryAfter: '2' },
          },
        })
      ).status,
    ).toBe(200);
    for (let i = 0; i < 3; i++) {
      const r = await create();
      expect(r.status).toBe(503);
      expect(r.headers['retry-after']).toBe('2');
    }
    sb.reset();
    expect((await post('/faults', { operation: 'video.get', fault: { type: 'reset' } })).status).toBe(200);
    await expect(http.call('GET', `${sb.videoBaseUrl}/v1/task/get/x`, { headers: videoHeaders(sb) })).rejects.toThrow();

    const bad = await post('/faults', { rule: { operation: 'video.nope', fault: { type: 'explode' } } });
    expect(bad.status).toBe(400);
    expect(bad.json.error.message).toContain('operation');
  });

  it('scripts review verdicts and outcomes, video outcomes and callback faults', async () => {
    expect(
      (
        await post('/review-verdicts', {
          url: 'https://cdn.example.com/v.jpg',
          verdict: { passed: false, errorCode: 'X' },
        })
      ).status,
    ).toBe(200);
    expect(
      (await post('/review-outcomes', { match: { url: 'https://cdn.example.com/f.jpg' }, outcome: 'failed' })).status,
    ).toBe(200);
    expect(
      (await post('/video-outcomes', { match: { model: 'broken' }, outcome: 'expired', durationMs: 50 })).status,
    ).toBe(200);
    expect((await post('/callback-faults', { rule: { kind: 'video', mode: 'drop' } })).status).toBe(200);

    expect((await reviewToEnd(http, sb, ['https://cdn.example.com/v.jpg'])).result.items[0]).toMatchObject({
      submit_review_status: 0,
      error_code: 'X',
    });
    expect((await reviewToEnd(http, sb, ['https://cdn.example.com/f.jpg'])).status).toBe('failed');
    const receiver = await startReceiver();
    try {
      const { json } = await create({
        model: 'broken',
        content: [{ type: 'text', text: 'x' }],
        callback_url: `${receiver.url}/v`,
      });
      await waitFor(
        async () =>
          (await http.call('GET', `${sb.videoBaseUrl}/v1/task/get/${json.id}`, { headers: videoHeaders(sb) })).json
            .status === 'expired',
      );
      await waitFor(() => sb.callbacks().length === 2, 2_000, 'two video callbacks');
      expect(
        (await get('/callbacks')).json.map((c: { status: string; outcome: string }) => [c.status, c.outcome]),
      ).toEqual([
        ['running', 'dropped'],
        ['expired', 'delivered'],
      ]);
      expect((await get('/video-tasks')).json).toEqual([
        expect.objectContaining({ id: json.id, status: 'expired', model: 'broken' }),
      ]);
    } finally {
      await receiver.close();
    }
    expect((await post('/video-outcomes', { match: {}, outcome: 'exploded' })).status).toBe(400);
  });

  it('cancels a review task, lists review tasks and resets', async () => {
    await post('/review-outcomes', {
      match: { url: 'https://cdn.example.com/slow.jpg' },
      outcome: 'completed',
      durationMs: 60_000,
    });
    const submit = await http.call('POST', `${sb.reviewBaseUrl}/api/asset/upload/async`, {
      headers: reviewHeaders(sb),
      json: { images: ['https://cdn.example.com/slow.jpg'] },
    });
    const taskId = submit.json.task_id as string;
    expect((await post(`/review-tasks/${taskId}/cancel`, {}, sb.reviewBaseUrl)).status).toBe(200);
    expect((await get('/review-tasks')).json).toEqual([expect.objectContaining({ taskId, status: 'cancelled' })]);
    expect((await post('/review-tasks/rvt-none/cancel', {})).status).toBe(404);

    expect((await post('/reset', {})).status).toBe(200);
    expect(sb.requests()).toEqual([]);
    expect(sb.reviewTasks()).toEqual([]);
    expect((await get('/nothing')).status).toBe(404);
  });
});
