// Error classification over real HTTP against a local node:http server: final vs retryable vs ambiguous
// (spec: errors), Retry-After, time-outs covering headers and body, lost connections, refused ports,
// unusable 2xx bodies, and no secret in any error.
import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import { inspect } from 'node:util';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ServiceError } from '../../src/services/errors.js';
import { ReviewClient } from '../../src/services/review/client.js';
import { VideoClient } from '../../src/services/video/client.js';
import { caught, REVIEW_TOKEN, reviewConfig, VIDEO_KEY, videoConfig } from '../support/service-configs.js';
import { defaultHandler, json, refusedPort, startTestServer, type TestServer } from '../support/test-server.js';

const createBody = { model: 'video-model-1', content: [{ type: 'text' as const, text: 'a cat' }] };
const reviewBody = { images: ['https://cdn.example.com/a.jpg'] };

let server: TestServer;
let video: VideoClient;
let review: ReviewClient;
const errors: unknown[] = [];

async function failure(call: Promise<unknown>): Promise<ServiceError> {
  const err = await caught(call);
  errors.push(err);
  expect(err).toBeInstanceOf(ServiceError);
  return err as ServiceError;
}

beforeAll(async () => {
  server = await startTestServer();
  video = new VideoClient(videoConfig(server.url, { timeoutMs: 400 }));
  review = new ReviewClient(reviewConfig(server.url, { timeoutMs: 400 }));
});
beforeEach(() => server.handle(defaultHandler));
afterAll(async () => {
  await video.close();
  await review.close();
  await server.close();
});

describe('HTTP statuses', () => {
  it('500 is ambiguous and retryable, with the spec advice in the message', async () => {
    server.handle((_req, res) => json(res, 500, { error: { message: 'internal error' } }));
    const err = await failure(video.createTask(createBody));
    expect(err).toMatchObject({
      service: 'video',
      operation: 'video.create',
      kind: 'http',
      status: 500,
      ambiguous: true,
      retryable: true,
    });
    expect(err.message).toMatch(/^video\.create failed: HTTP 500 \(ambiguous: the request may have reached the server/);
    expect(err.message).toContain('internal error');
    expect(err.responseBody).toEqual({ error: { message: 'internal error' } });
  });

  it.each([502, 504])('%i is ambiguous and retryable', async (status) => {
    server.handle((_req, res) => json(res, status, {}));
    expect(await failure(review.submitAsync(reviewBody))).toMatchObject({
      kind: 'http',
      status,
      ambiguous: true,
      retryable: true,
    });
  });

  it('400 is final: fix the request', async () => {
    server.handle((_req, res) =>
      json(res, 400, { error: { code: 'InvalidParameter', message: 'content is malformed' } }),
    );
    const err = await failure(video.createTask(createBody));
    expect(err).toMatchObject({ kind: 'http', status: 400, ambiguous: false, retryable: false });
    expect(err.message).toBe(
      'video.create failed: HTTP 400 (final: fix the request, do not retry): content is malformed',
    );
  });

  it('401 is final: fix the credentials', async () => {
    server.handle((_req, res) => json(res, 401, { message: 'unauthorized' }));
    const err = await failure(review.getTask('rt-1'));
    expect(err).toMatchObject({
      service: 'review',
      operation: 'review.query',
      kind: 'http',
      status: 401,
      ambiguous: false,
      retryable: false,
    });
    expect(err.message).toContain('HTTP 401 (final: check the credentials');
  });

  it.each([403, 404, 409, 422])('%i is final', async (status) => {
    server.handle((_req, res) => json(res, status, {}));
    expect(await failure(video.getTask('cgt-1'))).toMatchObject({
      kind: 'http',
      status,
      ambiguous: false,
      retryable: false,
    });
  });

  it('429 with Retry-After in seconds is retryable, not ambiguous', async () => {
    server.handle((_req, res) => json(res, 429, {}, { 'retry-after': '7' }));
    const err = await failure(review.getTask('rt-1'));
    expect(err).toMatchObject({ status: 429, ambiguous: false, retryable: true, retryAfterMs: 7000 });
    expect(err.message).toContain('Retry-After 7000 ms');
  });

  it('429 with Retry-After as an HTTP-date', async () => {
    const at = new Date(Date.now() + 30_000).toUTCString();
    server.handle((_req, res) => json(res, 429, {}, { 'retry-after': at }));
    const err = await failure(video.createTask(createBody));
    expect(err.retryable).toBe(true);
    expect(err.retryAfterMs).toBeGreaterThan(27_000);
    expect(err.retryAfterMs).toBeLessThanOrEqual(30_000);
  });

  it('a Retry-After date in the past is clamped to 0; an unreadable one is ignored', async () => {
    server.handle((_req, res) => json(res, 429, {}, { 'retry-after': 'Wed, 21 Oct 2015 07:28:00 GMT' }));
    expect((await failure(video.getTask('x'))).retryAfterMs).toBe(0);
    server.handle((_req, res) => json(res, 429, {}, { 'retry-after': 'soon' }));
    expect((await failure(video.getTask('x'))).retryAfterMs).toBeUndefined();
  });

  it('503 is retryable, not ambiguous, and carries its Retry-After', async () => {
    server.handle((_req, res) => json(res, 503, {}, { 'retry-after': '2' }));
    expect(await failure(review.submitAsync(reviewBody))).toMatchObject({
      status: 503,
      ambiguous: false,
      retryable: true,
      retryAfterMs: 2000,
    });
  });

  it('an error body that is not JSON is kept as a text excerpt', async () => {
    server.handle((_req, res) => {
      res.writeHead(502, { 'content-type': 'text/html' });
      res.end(`<html>${'x'.repeat(5000)}</html>`);
    });
    const err = await failure(video.getTask('x'));
    expect(typeof err.responseBody).toBe('string');
    expect((err.responseBody as string).length).toBeLessThanOrEqual(2001);
  });

  it('review: an error code in a 2xx body is reported like that status', async () => {
    server.handle((_req, res) => json(res, 200, { code: 401, message: 'invalid access token' }));
    const err = await failure(review.getTask('rt-1'));
    expect(err).toMatchObject({ kind: 'http', status: 401, ambiguous: false, retryable: false });
    expect(err.message).toContain('HTTP 200 with body code 401');
  });

  it('error bodies are read to the end: one kept-alive connection serves many failures', async () => {
    const before = server.connections();
    server.handle((_req, res) => json(res, 500, { detail: 'y'.repeat(20_000) }));
    for (let i = 0; i < 10; i++) await failure(video.getTask(`t${i}`));
    server.handle(defaultHandler);
    await video.getTask('ok');
    expect(server.connections() - before).toBeLessThanOrEqual(1);
  });
});

describe('time-outs and lost connections', () => {
  it('no response within the time-out: kind timeout, ambiguous', async () => {
    // The server takes the request and never answers: only the client's own time-out can end the call.
    const held: Array<{ res: ServerResponse; closed: Promise<unknown> }> = [];
    server.handle((req, res) => void held.push({ res, closed: once(req.socket, 'close') }));
    const err = await failure(video.createTask(createBody));
    expect(err).toMatchObject({ kind: 'timeout', status: undefined, ambiguous: true, retryable: true });
    expect(err.message).toMatch(
      /^video\.create failed: no complete response within 400 ms \(ambiguous: the request may have reached the server/,
    );
    // It did reach the server, once, and got nothing back; the client gave up and closed the connection.
    expect(held).toHaveLength(1);
    await held[0]!.closed;
    expect(held[0]!.res.headersSent).toBe(false);
  });

  it('the time-out covers the body: headers sent, body stalls', async () => {
    server.handle((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"id":');
    });
    expect(await failure(video.createTask(createBody))).toMatchObject({ kind: 'timeout', ambiguous: true });
  });

  it('socket destroyed after the request arrived: network, ambiguous', async () => {
    server.handle((req) => req.socket.destroy());
    const err = await failure(review.submitAsync(reviewBody));
    expect(err).toMatchObject({ kind: 'network', ambiguous: true, retryable: true });
    expect(err.message).toContain('after the request was sent (ambiguous');
  });

  it('connection refused: network, not ambiguous, retryable', async () => {
    const port = await refusedPort();
    const client = new VideoClient(videoConfig(`http://127.0.0.1:${port}`));
    const err = await failure(client.createTask(createBody));
    await client.close();
    expect(err).toMatchObject({ kind: 'network', ambiguous: false, retryable: true });
    expect(err.message).toBe('video.create failed: ECONNREFUSED before the request was sent (retryable)');
  });

  it('unknown host: network, not ambiguous, retryable', async () => {
    const client = new ReviewClient(reviewConfig('http://no-such-host.invalid'));
    const err = await failure(client.getTask('rt-1'));
    await client.close();
    expect(err).toMatchObject({ kind: 'network', ambiguous: false, retryable: true });
  });
});

describe('unusable 2xx bodies', () => {
  it('2xx with a body that is not JSON: malformed-response, ambiguous, retryable', async () => {
    server.handle((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"id": "cgt-1"');
    });
    const err = await failure(video.createTask(createBody));
    expect(err).toMatchObject({ kind: 'malformed-response', status: 200, ambiguous: true, retryable: true });
    expect(err.message).toMatch(/^video\.create failed: HTTP 200 with a body that is not JSON \(ambiguous/);
  });

  it('create answered without an id: malformed-response, ambiguous', async () => {
    server.handle((_req, res) => json(res, 200, { status: 'queued' }));
    expect(await failure(video.createTask(createBody))).toMatchObject({ kind: 'malformed-response', ambiguous: true });
  });

  it('async submit answered 2xx without task_id: malformed-response, ambiguous', async () => {
    server.handle((_req, res) => json(res, 200, { code: 200, status: 'pending' }));
    const err = await failure(review.submitAsync(reviewBody));
    expect(err).toMatchObject({ kind: 'malformed-response', status: 200, ambiguous: true, retryable: true });
    expect(err.message).toContain('no task_id in the body');
  });

  it('task query answered with a JSON that is not an object: malformed-response', async () => {
    server.handle((_req, res) => json(res, 200, ['not', 'a', 'task']));
    expect(await failure(video.getTask('cgt-1'))).toMatchObject({ kind: 'malformed-response' });
    expect(await failure(review.getTask('rt-1'))).toMatchObject({ kind: 'malformed-response' });
  });
});

describe('secrets', () => {
  it('a server echoing the credentials has them redacted from the error body and message', async () => {
    server.handle((req, res) =>
      json(res, 401, {
        message: `bad credentials: ${String(req.headers.authorization ?? req.headers['x-access-token'])}`,
        seen: req.headers,
      }),
    );
    const v = await failure(video.createTask(createBody));
    const r = await failure(review.getTask('rt-1'));
    expect(v.message).toContain('bad credentials: Bearer [redacted]');
    expect(JSON.stringify(r.responseBody)).toContain('[redacted]');
  });

  it('no error of this file carries the API key or the access token', () => {
    expect(errors.length).toBeGreaterThan(25);
    for (const err of errors) {
      const e = err as Error;
      for (const text of [e.message, String(e.stack), JSON.stringify(err), inspect(err, { depth: 10 })]) {
        expect(text).not.toContain(VIDEO_KEY);
        expect(text).not.toContain(REVIEW_TOKEN);
      }
    }
  });
});
