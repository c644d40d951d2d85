// Authentication headers as received by a real local server (spec: authentication): bearer only on the
// video service, X-Access-Token + a fresh 32-hex X-Track-Id only on the review service. Also paths:
// base-URL prefixes, encoded ids, and the configurable cancel.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReviewClient } from '../../src/services/review/client.js';
import { newTrackId, TRACK_ID_PATTERN } from '../../src/services/review/track-id.js';
import { VideoClient } from '../../src/services/video/client.js';
import { REVIEW_TOKEN, reviewConfig, VIDEO_KEY, videoConfig } from '../support/service-configs.js';
import { startTestServer, type ReceivedRequest, type TestServer } from '../support/test-server.js';

const AUTH_LIKE = /auth|token|api[-_]?key|x-track-id|bearer/i;

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

function authHeaders(r: ReceivedRequest): Record<string, unknown> {
  return Object.fromEntries(Object.entries(r.headers).filter(([name]) => AUTH_LIKE.test(name)));
}

describe('video service', () => {
  it('sends Authorization: Bearer <key> on every call and no other auth header', async () => {
    const client = new VideoClient(videoConfig(server.url));
    const from = server.received.length;
    await client.createTask({ model: 'm', content: [{ type: 'text', text: 'a cat' }] });
    await client.getTask('cgt-1');
    await client.cancelTask('cgt-1');
    await client.close();
    const calls = server.received.slice(from);
    expect(calls).toHaveLength(3);
    for (const r of calls) {
      expect(authHeaders(r)).toEqual({ authorization: `Bearer ${VIDEO_KEY}` });
      expect(JSON.stringify(r.headers)).not.toContain(REVIEW_TOKEN);
    }
    expect(calls[0]!.headers['content-type']).toBe('application/json');
  });

  it('keeps the base URL path prefix and encodes ids', async () => {
    const client = new VideoClient(videoConfig(`${server.url}/gateway/video/`));
    const from = server.received.length;
    await client.createTask({ model: 'm', content: [{ type: 'text', text: 'a cat' }] });
    await client.getTask('a/b c?d#e');
    await client.close();
    expect(server.received.slice(from).map((r) => `${r.method} ${r.url}`)).toEqual([
      'POST /gateway/video/v1/task/create',
      'GET /gateway/video/v1/task/get/a%2Fb%20c%3Fd%23e',
    ]);
  });

  it('cancels with the configured method and path, {id} replaced and encoded', async () => {
    const client = new VideoClient(
      videoConfig(server.url, { cancelMethod: 'DELETE', cancelPath: '/v2/tasks/{id}/cancel' }),
    );
    const from = server.received.length;
    await client.cancelTask('cgt/9');
    await client.close();
    expect(server.received.slice(from).map((r) => `${r.method} ${r.url}`)).toEqual(['DELETE /v2/tasks/cgt%2F9/cancel']);
  });
});

describe('review service', () => {
  it('sends X-Access-Token and a fresh 32-hex X-Track-Id on every call, never a bearer', async () => {
    const client = new ReviewClient(reviewConfig(server.url));
    const from = server.received.length;
    const accepted = await client.submitAsync({ images: ['https://cdn.example.com/a.jpg'] });
    await client.submitSync({ images: ['https://cdn.example.com/a.jpg'] });
    for (let i = 0; i < 20; i++) await client.getTask(`rt-${i}`);
    await client.close();
    const calls = server.received.slice(from);
    expect(calls).toHaveLength(22);
    const trackIds = calls.map((r) => r.headers['x-track-id']);
    for (const r of calls) {
      expect(Object.keys(authHeaders(r)).sort()).toEqual(['x-access-token', 'x-track-id']);
      expect(r.headers['x-access-token']).toBe(REVIEW_TOKEN);
      expect(r.headers['x-track-id']).toMatch(TRACK_ID_PATTERN);
      expect(JSON.stringify(r.headers)).not.toContain(VIDEO_KEY);
    }
    expect(new Set(trackIds).size).toBe(calls.length);
    expect(accepted.trackId).toBe(trackIds[0]);
    expect(calls.slice(0, 2).map((r) => r.headers['content-type'])).toEqual(['application/json', 'application/json']);
  });

  it('keeps the base URL path prefix and encodes task ids', async () => {
    const client = new ReviewClient(reviewConfig(`${server.url}/identity`));
    const from = server.received.length;
    await client.submitAsync({ images: ['https://cdn.example.com/a.jpg'] });
    await client.submitSync({ images: ['https://cdn.example.com/a.jpg'] });
    await client.getTask('rt 1/2');
    await client.close();
    expect(server.received.slice(from).map((r) => `${r.method} ${r.url}`)).toEqual([
      'POST /identity/api/asset/upload/async',
      'POST /identity/api/asset/upload/sync',
      'GET /identity/api/task/rt%201%2F2',
    ]);
  });

  it('newTrackId gives 32 lowercase hex characters, unique', () => {
    const ids = Array.from({ length: 1000 }, newTrackId);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{32}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('connection pool size', () => {
  it('opens at most `connections` sockets however many calls are in flight; the rest wait their turn', async () => {
    const pooled = await startTestServer();
    let inFlight = 0;
    let peak = 0;
    pooled.handle((_req, res) => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      // Held long enough that all twelve calls are waiting at once.
      setTimeout(() => {
        inFlight--;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ id: 'cgt-1', status: 'running' }));
      }, 50);
    });
    const client = new VideoClient(videoConfig(pooled.url, { connections: 3 }));
    try {
      const tasks = await Promise.all(Array.from({ length: 12 }, (_, i) => client.getTask(`cgt-${i}`)));
      expect(tasks).toHaveLength(12);
      expect(pooled.received).toHaveLength(12);
      expect(pooled.connections()).toBe(3);
      expect(peak).toBe(3);
    } finally {
      await client.close();
      await pooled.close();
    }
  });

  it('refuses a pool size that is not a positive integer, before any call', () => {
    for (const connections of [0, -1, 2.5, Number.NaN]) {
      expect(() => new ReviewClient(reviewConfig('http://127.0.0.1:1', { connections }))).toThrow(
        'review connections must be a positive integer',
      );
      expect(() => new VideoClient(videoConfig('http://127.0.0.1:1', { connections }))).toThrow(
        'video connections must be a positive integer',
      );
    }
  });
});
