// The asset review service: submit validation, the 202 answer, task lifecycle with done_count rising,
// per-item verdicts, failed/cancelled tasks, sync submit, 404, and the review callback.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../src/index.js';
import { sendRaw } from './support/raw-http.js';
import { Http, reviewHeaders, reviewToEnd, sleep, startReceiver, waitFor } from './support/sandbox-http.js';

let sb: Sandbox;
const http = new Http();
beforeAll(async () => {
  // Callbacks go to a receiver on loopback (packages/sandbox/test/public-addresses.test.ts covers the refusal).
  sb = await startSandbox({ reviewDurationMs: 400, allowPrivateUrls: true });
});
afterAll(async () => {
  await http.close();
  await sb.close();
});
beforeEach(() => sb.reset());

const submit = (body: unknown, mode: 'async' | 'sync' = 'async') =>
  http.call('POST', `${sb.reviewBaseUrl}/api/asset/upload/${mode}`, { headers: reviewHeaders(sb), json: body });
const query = (taskId: string) =>
  http.call('GET', `${sb.reviewBaseUrl}/api/task/${taskId}`, { headers: reviewHeaders(sb) });

describe('review submit validation', () => {
  const img = (i: number) => `https://cdn.example.com/img-${i}.jpg`;
  it.each([
    ['no images', {}, 'images: is required'],
    ['empty images', { images: [] }, 'images: must hold 1 to 50 URLs'],
    ['51 images', { images: Array.from({ length: 51 }, (_, i) => img(i)) }, 'images: must hold 1 to 50 URLs (got 51)'],
    ['an ftp URL', { images: ['ftp://cdn.example.com/a.jpg'] }, 'images[0]: only public http or https'],
    ['a data: URL', { images: ['data:image/png;base64,AAAA'] }, 'images[0]: only public http or https'],
    [
      'an unknown extension',
      { images: [img(0), 'https://cdn.example.com/a.txt'] },
      'images[1]: the URL needs a supported extension',
    ],
    [
      'mixed types',
      { images: [img(0), 'https://cdn.example.com/v.mp4'], asset_type: 'Image' },
      'images[1]: is Video but images[0] is Image',
    ],
    [
      'videos without asset_type',
      { images: ['https://cdn.example.com/v.mp4'] },
      'asset_type: defaults to Image but the URLs are Video',
    ],
    [
      'asset_type not matching',
      { images: ['https://cdn.example.com/a.wav'], asset_type: 'Video' },
      'asset_type: is Video but the URLs are Audio',
    ],
    ['an unknown asset_type', { images: [img(0)], asset_type: 'Picture' }, 'asset_type:'],
    [
      'a bad group_source with group_id',
      { images: [img(0)], group_id: 'g1', group_source: 'celebrity' },
      'group_source:',
    ],
    ['a bad callback_url', { images: [img(0)], callback_url: 'not a url' }, 'callback_url: must be an http(s) URL'],
    [
      'a bad entry in asset_url_list (which wins over images)',
      { images: [img(0)], asset_url_list: ['https://cdn.example.com/x.doc'] },
      'asset_url_list[0]:',
    ],
    ['images not an array', { images: 'https://cdn.example.com/a.jpg' }, 'images:'],
  ])('rejects %s with 400 naming the field', async (_name, body, message) => {
    for (const mode of ['async', 'sync'] as const) {
      const r = await submit(body, mode);
      expect(r.status).toBe(400);
      expect(r.json.error.code).toBe('invalid_request');
      expect(r.json.error.message).toContain(message);
    }
    expect(sb.reviewTasks()).toHaveLength(0);
  });

  it('rejects a body that is not JSON, or sent without Content-Type: application/json', async () => {
    const notJson = await http.call('POST', `${sb.reviewBaseUrl}/api/asset/upload/async`, {
      headers: reviewHeaders(sb),
      body: '{nope',
    });
    expect(notJson.status).toBe(400);
    expect(notJson.json.error.message).toContain('body: is not valid JSON');
    const h = { ...reviewHeaders(sb), 'content-type': 'text/plain' };
    const wrongType = await http.call('POST', `${sb.reviewBaseUrl}/api/asset/upload/async`, {
      headers: h,
      json: { images: ['https://a.example/a.jpg'] },
    });
    expect(wrongType.status).toBe(400);
    expect(wrongType.json.error.message).toContain('Content-Type');
  });

  it('accepts group_source real_person or empty with group_id, and uses asset_url_list when both lists are sent', async () => {
    expect((await submit({ images: [img(1)], group_id: 'g1', group_source: 'real_person' })).status).toBe(202);
    expect((await submit({ images: [img(1)], group_id: 'g1', group_source: '' })).status).toBe(202);
    // The spec restricts group_source only when group_id is sent.
    expect((await submit({ images: [img(1)], group_source: 'real_person' })).status).toBe(202);
    expect((await submit({ images: [img(1)], group_source: 'celebrity' })).status).toBe(202);
    const both = await submit({ images: [img(1)], asset_url_list: ['https://cdn.example.com/legacy.png'] });
    expect(both.status).toBe(202);
    expect(sb.reviewTasks().at(-1)!.urls).toEqual(['https://cdn.example.com/legacy.png']);
  });
});

describe('review task lifecycle', () => {
  it('answers 202 with code, task_id, echoed track_id and callback_url, status pending', async () => {
    const headers = reviewHeaders(sb);
    const r = await http.call('POST', `${sb.reviewBaseUrl}/api/asset/upload/async`, {
      headers,
      json: { images: ['https://cdn.example.com/a.jpg'], callback_url: 'https://hooks.example.com/r' },
    });
    expect(r.status).toBe(202);
    expect(r.json).toEqual({
      code: 202,
      task_id: expect.any(String),
      track_id: headers['x-track-id'],
      status: 'pending',
      message: 'accepted',
      callback_url: 'https://hooks.example.com/r',
    });
    const noCallback = await submit({ images: ['https://cdn.example.com/a.jpg'] });
    expect(noCallback.json).not.toHaveProperty('callback_url');
  });

  it('goes pending -> processing (done_count rising item by item) -> completed with Asset:// items', async () => {
    const urls = [
      'https://cdn.example.com/p/1.jpg',
      'https://cdn.example.com/p/2.png',
      'https://cdn.example.com/p/3.webp',
      'https://cdn.example.com/p/4.gif',
    ];
    const { json } = await submit({ images: urls, asset_type: 'Image' });
    const seen: Array<{ status: string; done: number }> = [];
    let last: Record<string, unknown> & { status: string; done_count: number; total_count: number } = {
      status: '',
      done_count: 0,
      total_count: 0,
    };
    while (!['completed', 'failed', 'cancelled'].includes(last.status)) {
      last = (await query(json.task_id)).json;
      seen.push({ status: last.status, done: last.done_count });
      expect(last.total_count).toBe(4);
      if (last.status !== 'completed') {
        expect(last.done_count).toBeLessThan(last.total_count);
        expect(last).not.toHaveProperty('result');
      }
      await sleep(15);
    }
    // Statuses only move forward (the first query may already find it processing on a loaded machine).
    const order = ['pending', 'processing', 'completed'];
    const ranks = seen.map((s) => order.indexOf(s.status));
    expect(ranks.every((r) => r >= 0)).toBe(true);
    expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
    const processing = seen.filter((s) => s.status === 'processing').map((s) => s.done);
    expect(processing).toEqual([...processing].sort((a, b) => a - b));
    expect(new Set(processing).size).toBeGreaterThanOrEqual(3); // 0, 1, 2, 3 observed one by one
    expect(last).toMatchObject({
      code: 200,
      task_id: json.task_id,
      status: 'completed',
      total_count: 4,
      done_count: 4,
      message: expect.any(String),
    });

    const result = last.result as { review_batch_id: string; items: Array<Record<string, unknown>> };
    expect(result.review_batch_id).toEqual(expect.any(String));
    expect(result.items.map((i) => i.source_url)).toEqual(urls);
    for (const item of result.items) {
      expect(item).toEqual({
        asset_id: expect.any(String),
        source_url: expect.any(String),
        asset_url: `Asset://${item.asset_id}`,
        downstream_asset_id: expect.any(String),
        downstream_final_url: expect.stringMatching(/\/signed\/.+\?.*expires=\d+$/),
        submit_review_status: 1,
        error_code: '',
        error_message: '',
      });
    }
    expect(sb.reviewTasks()).toEqual([
      { taskId: json.task_id, status: 'completed', urls, createdAt: expect.any(Number) },
    ]);
  });

  it('rejects items per verdict: setReviewVerdict and the `reject` URL hint', async () => {
    const scripted = 'https://cdn.example.com/people/bob.jpg';
    sb.setReviewVerdict(scripted, {
      passed: false,
      errorCode: 'FACE_NOT_AUTHORIZED',
      errorMessage: 'real person not authorized',
    });
    const final = await reviewToEnd(http, sb, [
      'https://cdn.example.com/ok.jpg',
      scripted,
      'https://cdn.example.com/reject/c.jpg',
    ]);
    expect(final.status).toBe('completed');
    const items = final.result.items;
    expect(items.map((i: { submit_review_status: number }) => i.submit_review_status)).toEqual([1, 0, 0]);
    expect(items[1]).toMatchObject({ error_code: 'FACE_NOT_AUTHORIZED', error_message: 'real person not authorized' });
    expect(items[2]).toMatchObject({ error_code: 'CONTENT_REJECTED', error_message: expect.any(String) });
  });

  it('fails a task (review-fail hint or setReviewTaskOutcome) with top-level error information', async () => {
    const hinted = await reviewToEnd(http, sb, ['https://cdn.example.com/review-fail/a.jpg']);
    expect(hinted).toMatchObject({
      code: 200,
      status: 'failed',
      error_code: 'REVIEW_FAILED',
      error_message: expect.any(String),
      error: { code: 'REVIEW_FAILED' },
    });
    expect(hinted).not.toHaveProperty('result');
    sb.setReviewTaskOutcome({ url: 'https://cdn.example.com/plain.jpg' }, 'failed', 100);
    expect((await reviewToEnd(http, sb, ['https://cdn.example.com/plain.jpg'])).status).toBe('failed');
  });

  it('cancels a task by hint, by script and by cancelReviewTask', async () => {
    expect((await reviewToEnd(http, sb, ['https://cdn.example.com/review-cancel/a.jpg'])).status).toBe('cancelled');
    sb.setReviewTaskOutcome({ url: 'https://cdn.example.com/c.jpg' }, 'cancelled');
    expect((await reviewToEnd(http, sb, ['https://cdn.example.com/c.jpg'])).status).toBe('cancelled');

    sb.setReviewTaskOutcome({ url: 'https://cdn.example.com/slow.jpg' }, 'completed', 60_000);
    const { json } = await submit({ images: ['https://cdn.example.com/slow.jpg'] });
    sb.cancelReviewTask(json.task_id);
    const q = await query(json.task_id);
    expect(q.json).toMatchObject({ status: 'cancelled', error_code: 'REVIEW_CANCELLED' });
    expect(() => sb.cancelReviewTask('rvt-unknown')).toThrow(/no review task/);
  });

  it("can answer completed queries with body code 0 (the spec's further shape)", async () => {
    const zero = await startSandbox({ reviewDurationMs: 50, reviewCompletedCode: 0 });
    try {
      const final = await reviewToEnd(http, zero, ['https://cdn.example.com/zero.jpg']);
      expect(final).toMatchObject({ code: 0, status: 'completed' });
    } finally {
      await zero.close();
    }
  });

  it('answers 404 for an unknown task id', async () => {
    const r = await query('rvt-does-not-exist');
    expect(r.status).toBe(404);
    expect(r.json.error.code).toBe('task_not_found');
  });

  it('answers an unknown path with 404 after auth', async () => {
    const r = await http.call('GET', `${sb.reviewBaseUrl}/api/nothing`, { headers: reviewHeaders(sb) });
    expect(r.status).toBe(404);
  });

  it('reads a request target as a path: "//x^y" is an unknown path (404), "*" a bad request (400), never a 500', async () => {
    const port = Number(new URL(sb.reviewBaseUrl).port);
    const auth = Object.entries(reviewHeaders(sb))
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('');
    const raw = (target: string) =>
      sendRaw(port, Buffer.from(`GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n${auth}\r\n`, 'latin1'));
    expect((await raw('//czQ^B?x')).statuses).toEqual([404]);
    expect((await raw('//api/task/rvt-x')).statuses).toEqual([404]);
    expect((await raw('*')).statuses).toEqual([400]);
  });
});

describe('sync submit', () => {
  it('validates the same way and answers 200 with the final task object', async () => {
    const started = Date.now();
    const r = await submit(
      { images: ['https://cdn.example.com/s/1.jpg', 'https://cdn.example.com/reject/2.jpg'] },
      'sync',
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(350);
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ code: 200, status: 'completed', total_count: 2, done_count: 2 });
    expect(r.json.result.items.map((i: { submit_review_status: number }) => i.submit_review_status)).toEqual([1, 0]);
    expect(sb.requests().at(-1)).toMatchObject({ operation: 'review.submitSync', status: 200, taskId: r.json.task_id });
  });

  it('is bounded: a review longer than syncReviewWaitMs answers the current (unfinished) state', async () => {
    const quick = await startSandbox({ syncReviewWaitMs: 150 });
    try {
      quick.setReviewTaskOutcome({ url: 'https://cdn.example.com/long.jpg' }, 'completed', 10_000);
      const r = await http.call('POST', `${quick.reviewBaseUrl}/api/asset/upload/sync`, {
        headers: reviewHeaders(quick),
        json: { images: ['https://cdn.example.com/long.jpg'] },
      });
      expect(r.status).toBe(200);
      expect(['pending', 'processing']).toContain(r.json.status);
    } finally {
      await quick.close();
    }
  });
});

describe('review callback', () => {
  it('POSTs the query JSON to callback_url once the task is final', async () => {
    const receiver = await startReceiver();
    try {
      const callbackUrl = `${receiver.url}/hooks/review?sig=abc`;
      const { json } = await submit({ images: ['https://cdn.example.com/cb/1.jpg'], callback_url: callbackUrl });
      await waitFor(() => receiver.received.length === 1, 5_000, 'review callback');
      await sleep(100);
      expect(receiver.received).toHaveLength(1);
      expect(receiver.received[0]!.path).toBe('/hooks/review?sig=abc');
      expect(receiver.received[0]!.body).toEqual((await query(json.task_id)).json);
      expect(sb.callbacks()).toEqual([
        expect.objectContaining({
          kind: 'review',
          url: callbackUrl,
          taskId: json.task_id,
          status: 'completed',
          outcome: 'delivered',
          httpStatus: 200,
        }),
      ]);
    } finally {
      await receiver.close();
    }
  });

  it('logs a refused callback as rejected and an unreachable one as error, without failing the task', async () => {
    const receiver = await startReceiver();
    receiver.status = 500;
    await reviewToEnd(http, sb, ['https://cdn.example.com/cb/2.jpg'], { callback_url: `${receiver.url}/r` });
    // The callback goes out after the task is final: let it reach the receiver before closing it.
    await waitFor(() => sb.callbacks().length === 1, 5_000, 'the first callback attempt');
    await receiver.close();
    await reviewToEnd(http, sb, ['https://cdn.example.com/cb/3.jpg'], { callback_url: `${receiver.url}/gone` });
    await waitFor(() => sb.callbacks().length === 2, 5_000, 'two callback attempts');
    expect(sb.callbacks().map((c) => [c.outcome, c.httpStatus])).toEqual([
      ['rejected', 500],
      ['error', undefined],
    ]);
  });

  it('is not sent for sync submits (the spec calls back on async submits only)', async () => {
    const receiver = await startReceiver();
    try {
      await submit({ images: ['https://cdn.example.com/cb/4.jpg'], callback_url: `${receiver.url}/r` }, 'sync');
      await sleep(100);
      expect(receiver.received).toHaveLength(0);
    } finally {
      await receiver.close();
    }
  });
});
