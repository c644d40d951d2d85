// Authentication of both services, exactly as the spec: bearer only on video, token + track id only on review.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../src/index.js';
import { createBody, Http, reviewHeaders, trackId, videoHeaders } from './support/sandbox-http.js';

let sb: Sandbox;
const http = new Http();
beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(async () => {
  await http.close();
  await sb.close();
});

const reviewBody = { images: ['https://cdn.example.com/a.jpg'] };

describe('video service auth', () => {
  it('accepts the bearer key alone', async () => {
    const r = await http.call('POST', `${sb.videoBaseUrl}/v1/task/create`, {
      headers: videoHeaders(sb),
      json: createBody(),
    });
    expect(r.status).toBe(200);
  });

  it.each([
    ['no Authorization', (h: Record<string, string>) => ({ 'content-type': h['content-type']! })],
    ['a wrong key', (h: Record<string, string>) => ({ ...h, authorization: 'Bearer nope' })],
    ['a non-bearer scheme', (h: Record<string, string>) => ({ ...h, authorization: `Basic ${sb.apiKey}` })],
    ['the bearer plus X-Access-Token', (h: Record<string, string>) => ({ ...h, 'x-access-token': sb.accessToken })],
    ['the bearer plus X-Track-Id', (h: Record<string, string>) => ({ ...h, 'x-track-id': trackId() })],
  ])('rejects %s with 401 and a JSON error body', async (_name, headersOf) => {
    const r = await http.call('POST', `${sb.videoBaseUrl}/v1/task/create`, {
      headers: headersOf(videoHeaders(sb)),
      json: createBody(),
    });
    expect(r.status).toBe(401);
    expect(r.json.error.code).toBe('unauthorized');
    expect(typeof r.json.error.message).toBe('string');
    expect(r.text).not.toContain(sb.apiKey);
  });

  it('applies to get and cancel too', async () => {
    const get = await http.call('GET', `${sb.videoBaseUrl}/v1/task/get/cgt-x`, {
      headers: { 'x-access-token': sb.accessToken },
    });
    const cancel = await http.call('POST', `${sb.videoBaseUrl}/v1/task/cancel/cgt-x`, {});
    expect([get.status, cancel.status]).toEqual([401, 401]);
  });
});

describe('review service auth', () => {
  it('accepts X-Access-Token with a 32-hex X-Track-Id (either case)', async () => {
    const h = { ...reviewHeaders(sb), 'x-track-id': trackId().toUpperCase() };
    const r = await http.call('POST', `${sb.reviewBaseUrl}/api/asset/upload/async`, { headers: h, json: reviewBody });
    expect(r.status).toBe(202);
  });

  it.each([
    [
      'a bearer token alongside the review headers',
      (h: Record<string, string>) => ({ ...h, authorization: `Bearer ${sb.apiKey}` }),
    ],
    [
      'a bearer token alone',
      (h: Record<string, string>) => ({
        'content-type': h['content-type']!,
        authorization: `Bearer ${sb.accessToken}`,
      }),
    ],
    [
      'no X-Track-Id',
      (h: Record<string, string>) => ({ 'content-type': h['content-type']!, 'x-access-token': sb.accessToken }),
    ],
    [
      'no X-Access-Token',
      (h: Record<string, string>) => ({ 'content-type': h['content-type']!, 'x-track-id': trackId() }),
    ],
    [
      'a UUID track id (hyphens)',
      (h: Record<string, string>) => ({ ...h, 'x-track-id': '123e4567-e89b-12d3-a456-426614174000' }),
    ],
    ['a 31-character track id', (h: Record<string, string>) => ({ ...h, 'x-track-id': trackId().slice(1) })],
    ['a non-hex track id', (h: Record<string, string>) => ({ ...h, 'x-track-id': 'z'.repeat(32) })],
    ['a wrong access token', (h: Record<string, string>) => ({ ...h, 'x-access-token': 'nope' })],
  ])('rejects %s with 401', async (_name, headersOf) => {
    const r = await http.call('POST', `${sb.reviewBaseUrl}/api/asset/upload/async`, {
      headers: headersOf(reviewHeaders(sb)),
      json: reviewBody,
    });
    expect(r.status).toBe(401);
    expect(r.json.error.code).toBe('unauthorized');
    expect(r.text).not.toContain(sb.accessToken);
  });

  it('applies to the query too', async () => {
    const r = await http.call('GET', `${sb.reviewBaseUrl}/api/task/whatever`, {
      headers: { 'x-access-token': sb.accessToken },
    });
    expect(r.status).toBe(401);
  });

  it('logs rejected requests with their headers as received', async () => {
    const before = sb.requests().length;
    await http.call('GET', `${sb.reviewBaseUrl}/api/task/abc`, {
      headers: { Authorization: 'Bearer x', 'X-Track-Id': 'T' },
    });
    const entry = sb.requests()[before]!;
    expect(entry).toMatchObject({
      service: 'review',
      operation: 'review.query',
      method: 'GET',
      path: '/api/task/abc',
      status: 401,
      taskId: 'abc',
    });
    expect(entry.headers).toMatchObject({ authorization: 'Bearer x', 'x-track-id': 'T' });
  });
});
