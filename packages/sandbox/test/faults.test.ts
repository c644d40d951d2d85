// Request faults: status (with Retry-After), hang, reset and malformed, each before and after the
// commit (nothing created vs. task created), matching, times, and latency on every answer.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../src/index.js';
import { createBody, Http, reviewHeaders, sleep, videoHeaders, waitFor } from './support/sandbox-http.js';

let sb: Sandbox;
const http = new Http();
beforeAll(async () => {
  sb = await startSandbox({ reviewDurationMs: 100, videoDurationMs: 200 });
});
afterAll(async () => {
  await http.close();
  await sb.close();
});
beforeEach(() => sb.reset());

const create = (body: unknown = createBody(), timeoutMs?: number) =>
  http.call('POST', `${sb.videoBaseUrl}/v1/task/create`, {
    headers: videoHeaders(sb),
    json: body,
    ...(timeoutMs ? { timeoutMs } : {}),
  });
const submit = (urls: string[]) =>
  http.call('POST', `${sb.reviewBaseUrl}/api/asset/upload/async`, {
    headers: reviewHeaders(sb),
    json: { images: urls },
  });
const query = (taskId: string) =>
  http.call('GET', `${sb.reviewBaseUrl}/api/task/${taskId}`, { headers: reviewHeaders(sb) });
const lastEntry = () => sb.requests().at(-1)!;

describe('status faults', () => {
  it('429 and 503 on a review query carry the Retry-After header, and are logged with it', async () => {
    const { json } = await submit(['https://cdn.example.com/a.jpg']);
    sb.addFault({ operation: 'review.query', fault: { type: 'status', status: 429, retryAfter: '3' } });
    sb.addFault({
      operation: 'review.query',
      match: { taskId: json.task_id },
      fault: { type: 'status', status: 503, retryAfter: 'Wed, 21 Oct 2099 07:28:00 GMT' },
    });
    const first = await query(json.task_id);
    expect(first.status).toBe(429);
    expect(first.headers['retry-after']).toBe('3');
    expect(first.json.error).toMatchObject({ code: 'http_429' });
    expect(lastEntry()).toMatchObject({
      operation: 'review.query',
      status: 429,
      fault: 'status:429',
      retryAfter: '3',
      taskId: json.task_id,
    });
    const second = await query(json.task_id);
    expect(second.status).toBe(503);
    expect(second.headers['retry-after']).toBe('Wed, 21 Oct 2099 07:28:00 GMT');
    expect((await query(json.task_id)).status).toBe(200); // both used up
  });

  it('500 before commit creates nothing; 500 after commit creates the task and logs its id', async () => {
    sb.addFault({ operation: 'video.create', fault: { type: 'status', status: 500, commit: false } });
    expect((await create()).status).toBe(500);
    expect(sb.videoTasks()).toHaveLength(0);
    expect(lastEntry()).toMatchObject({ status: 500, fault: 'status:500' });
    expect(lastEntry().taskId).toBeUndefined();

    sb.addFault({ operation: 'video.create', fault: { type: 'status', status: 500, commit: true } });
    expect((await create()).status).toBe(500);
    expect(sb.videoTasks()).toHaveLength(1);
    expect(lastEntry()).toMatchObject({ status: 500, fault: 'status:500:commit', taskId: sb.videoTasks()[0]!.id });
  });

  it('answers a custom body, and commit on review submit creates the review task', async () => {
    sb.addFault({
      operation: 'review.submitAsync',
      fault: { type: 'status', status: 502, body: { oops: true }, commit: true },
    });
    const r = await submit(['https://cdn.example.com/b.jpg']);
    expect([r.status, r.json]).toEqual([502, { oops: true }]);
    expect(sb.reviewTasks()).toHaveLength(1);
  });
});

describe('hang faults', () => {
  it('before commit: the client times out, nothing is created, a 504 follows after ms', async () => {
    sb.addFault({ operation: 'video.create', fault: { type: 'hang', ms: 400 } });
    await expect(create(createBody(), 100)).rejects.toThrow();
    expect(sb.videoTasks()).toHaveLength(0);
    await waitFor(() => lastEntry().status === 504, 2_000, 'the 504 after the hang');
    // Logged as what the client would have been told, marked as never seen: it had given up.
    expect(lastEntry()).toMatchObject({ fault: 'hang:400', clientGone: true });
  });

  it('after commit: the task exists at once; a patient client gets the real answer after ms', async () => {
    sb.addFault({ operation: 'video.create', fault: { type: 'hang', ms: 300, commit: true } });
    const started = Date.now();
    const pending = create();
    await waitFor(() => sb.videoTasks().length === 1, 1_000, 'task created during the hang');
    const r = await pending;
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(r.status).toBe(200);
    expect(r.json.id).toBe(sb.videoTasks()[0]!.id);
    expect(lastEntry().clientGone).toBeUndefined();
  });
});

describe('reset faults', () => {
  it('before commit: socket destroyed, nothing created', async () => {
    sb.addFault({ operation: 'video.create', fault: { type: 'reset' } });
    await expect(create()).rejects.toThrow();
    expect(sb.videoTasks()).toHaveLength(0);
    expect(lastEntry()).toMatchObject({ status: 0, fault: 'reset' });
  });

  it('after commit: socket destroyed, task created', async () => {
    sb.addFault({ operation: 'video.create', fault: { type: 'reset', commit: true } });
    await expect(create()).rejects.toThrow();
    expect(sb.videoTasks()).toHaveLength(1);
    expect(lastEntry()).toMatchObject({ status: 0, fault: 'reset:commit', taskId: sb.videoTasks()[0]!.id });
  });
});

describe('malformed faults', () => {
  it('answers 2xx with a body that is not JSON, before or after commit', async () => {
    sb.addFault({ operation: 'video.create', fault: { type: 'malformed' } });
    const before = await create();
    expect(before.status).toBe(200);
    expect(before.json).toBeUndefined();
    expect(sb.videoTasks()).toHaveLength(0);

    sb.addFault({ operation: 'video.create', fault: { type: 'malformed', commit: true } });
    expect((await create()).json).toBeUndefined();
    expect(sb.videoTasks()).toHaveLength(1);

    sb.addFault({ operation: 'review.submitAsync', fault: { type: 'malformed', commit: true } });
    const review = await submit(['https://cdn.example.com/c.jpg']);
    expect(review.status).toBe(202);
    expect(review.json).toBeUndefined();
    expect(sb.reviewTasks()).toHaveLength(1);
    expect(lastEntry().response).toBeUndefined();
  });
});

describe('matching and times', () => {
  it('matches on a media URL in the body, on the model, and on the task id in the path', async () => {
    sb.addFault({
      operation: 'video.create',
      match: { url: 'https://cdn.example.com/target.jpg' },
      fault: { type: 'status', status: 503 },
    });
    sb.addFault({ operation: 'video.create', match: { model: 'model-x' }, fault: { type: 'status', status: 429 } });
    expect((await create(createBody('https://cdn.example.com/other.jpg'))).status).toBe(200);
    expect((await create(createBody('https://cdn.example.com/target.jpg'))).status).toBe(503);
    expect((await create({ ...createBody(), model: 'model-x' })).status).toBe(429);

    const id = sb.videoTasks()[0]!.id;
    sb.addFault({ operation: 'video.get', match: { taskId: 'cgt-other' }, fault: { type: 'status', status: 500 } });
    expect((await http.call('GET', `${sb.videoBaseUrl}/v1/task/get/${id}`, { headers: videoHeaders(sb) })).status).toBe(
      200,
    );
  });

  it('uses a rule `times` times, or for ever with Infinity', async () => {
    sb.addFault({ operation: 'video.create', times: 2, fault: { type: 'status', status: 503 } });
    expect([(await create()).status, (await create()).status, (await create()).status]).toEqual([503, 503, 200]);
    sb.addFault({ operation: 'video.get', times: Infinity, fault: { type: 'status', status: 500 } });
    for (let i = 0; i < 5; i++)
      expect((await http.call('GET', `${sb.videoBaseUrl}/v1/task/get/x`, { headers: videoHeaders(sb) })).status).toBe(
        500,
      );
    expect(() => sb.addFault({ operation: 'video.get', times: 0, fault: { type: 'reset' } })).toThrow(/times/);
  });

  it('applies before auth when not committing (a gateway answers), after the service when committing', async () => {
    sb.addFault({ operation: 'video.create', fault: { type: 'status', status: 503 } });
    const r = await http.call('POST', `${sb.videoBaseUrl}/v1/task/create`, {
      headers: { 'content-type': 'application/json' },
      json: createBody(),
    });
    expect(r.status).toBe(503);
  });
});

describe('latency', () => {
  it('is added to every answer, faults included', async () => {
    const slow = await startSandbox({ latencyMs: 150 });
    try {
      for (const run of [
        () =>
          http.call('POST', `${slow.videoBaseUrl}/v1/task/create`, { headers: videoHeaders(slow), json: createBody() }),
        () => http.call('GET', `${slow.reviewBaseUrl}/api/task/x`, { headers: reviewHeaders(slow) }),
        () => http.call('GET', `${slow.reviewBaseUrl}/api/task/x`, {}),
        () => {
          slow.addFault({ operation: 'review.query', fault: { type: 'status', status: 429, retryAfter: '1' } });
          return http.call('GET', `${slow.reviewBaseUrl}/api/task/x`, { headers: reviewHeaders(slow) });
        },
      ]) {
        const started = Date.now();
        await run();
        expect(Date.now() - started).toBeGreaterThanOrEqual(145);
      }
    } finally {
      await slow.close();
    }
  });

  it('closes cleanly while requests hang', async () => {
    const hanging = await startSandbox();
    hanging.addFault({ operation: 'video.get', fault: { type: 'hang', ms: 60_000 } });
    const pending = http.call('GET', `${hanging.videoBaseUrl}/v1/task/get/x`, { headers: videoHeaders(hanging) });
    await sleep(50);
    await hanging.close();
    await expect(pending).rejects.toThrow();
  });
});
