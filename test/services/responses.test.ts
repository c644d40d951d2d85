// Lenient reading of responses (unknown members kept, odd shapes tolerated) and the strict points of the
// spec: an item passes only with submit_review_status === 1, and only asset_url is exposed as the address.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReviewClient } from '../../src/services/review/client.js';
import {
  assetTypeOf,
  isFinalReviewStatus,
  normalizeReviewTask,
  planReviewBatches,
} from '../../src/model/review/schemas.js';
import { RequestValidationError } from '../../src/model/validation.js';
import { parseRetryAfter } from '../../src/services/retry-after.js';
import { nonPublicHostReason } from '../../src/model/url-rules.js';
import { VideoClient } from '../../src/services/video/client.js';
import {
  isFinalVideoStatus,
  mediaUrlsOf,
  normalizeVideoTask,
  validateCreateTaskBody,
} from '../../src/model/video/schemas.js';
import { reviewConfig, videoConfig } from '../support/service-configs.js';
import { json, startTestServer, type TestServer } from '../support/test-server.js';

const item = (over: Record<string, unknown>) => ({
  asset_id: 'as-1',
  source_url: 'https://cdn.example.com/a.jpg',
  asset_url: 'Asset://as-1',
  downstream_asset_id: 'ds-1',
  downstream_final_url: 'https://signed.example.com/a.jpg?expires=1',
  submit_review_status: 1,
  error_code: '',
  error_message: '',
  ...over,
});

describe('review task', () => {
  it('reads a completed query; items pass only with submit_review_status === 1', () => {
    const raw = {
      code: 200,
      task_id: 'rt-1',
      status: 'completed',
      total_count: 4,
      done_count: 4,
      result: {
        review_batch_id: 'b-1',
        items: [
          item({}),
          item({ submit_review_status: 0, asset_url: '', error_code: 40001, error_message: 'face not authorized' }),
          item({ submit_review_status: '1' }),
          item({ submit_review_status: true }),
        ],
      },
      brand_new_field: { kept: true },
    };
    const task = normalizeReviewTask(raw);
    expect(task).toMatchObject({ taskId: 'rt-1', status: 'completed', totalCount: 4, doneCount: 4, error: undefined });
    expect(task.items.map((i) => i.passed)).toEqual([true, false, false, false]);
    expect(task.items[0]).toEqual({
      sourceUrl: 'https://cdn.example.com/a.jpg',
      assetUrl: 'Asset://as-1',
      assetId: 'as-1',
      passed: true,
      errorCode: '',
      errorMessage: '',
    });
    expect(task.items[1]).toMatchObject({ passed: false, errorCode: '40001', errorMessage: 'face not authorized' });
    expect(task.raw).toBe(raw);
  });

  it('never exposes downstream_final_url as a field of an item', () => {
    const [first] = normalizeReviewTask({ task_id: 't', status: 'completed', result: { items: [item({})] } }).items;
    expect(Object.keys(first!).sort()).toEqual([
      'assetId',
      'assetUrl',
      'errorCode',
      'errorMessage',
      'passed',
      'sourceUrl',
    ]);
    expect(JSON.stringify(first)).not.toContain('signed.example.com');
  });

  it('accepts code 0 with a data wrapper, and unknown statuses as unknown', () => {
    const task = normalizeReviewTask({ code: 0, data: { task_id: 'rt-2', status: 'Reviewing', total_count: '3' } });
    expect(task).toMatchObject({
      taskId: 'rt-2',
      status: 'unknown',
      rawStatus: 'Reviewing',
      totalCount: undefined,
      items: [],
    });
    expect(isFinalReviewStatus(task.status)).toBe(false);
    expect(
      ['completed', 'failed', 'cancelled'].map((s) => isFinalReviewStatus(normalizeReviewTask({ status: s }).status)),
    ).toEqual([true, true, true]);
    expect(normalizeReviewTask({ status: 'constructor' }).status).toBe('unknown');
  });

  it('reads task-level failure information', () => {
    expect(normalizeReviewTask({ task_id: 't', status: 'failed', message: 'quota exhausted' }).error).toEqual({
      message: 'quota exhausted',
    });
    expect(
      normalizeReviewTask({ task_id: 't', status: 'failed', error_code: 'E42', error_message: 'bad batch' }).error,
    ).toEqual({ code: 'E42', message: 'bad batch' });
    expect(normalizeReviewTask({ task_id: 't', status: 'pending', message: 'accepted' }).error).toBeUndefined();
  });
});

describe('video task', () => {
  it('reads the expected record and keeps it in raw', () => {
    const raw = {
      id: 'cgt-1',
      model: 'm',
      status: 'succeeded',
      content: { video_url: 'https://v.example.com/o.mp4' },
      usage: { tokens: 3 },
    };
    expect(normalizeVideoTask(raw)).toEqual({
      id: 'cgt-1',
      status: 'succeeded',
      rawStatus: 'succeeded',
      videoUrl: 'https://v.example.com/o.mp4',
      error: undefined,
      raw,
    });
  });

  it('accepts data-wrapped records, task_status, and errors as objects or strings', () => {
    expect(
      normalizeVideoTask({
        code: 0,
        data: { task_id: 'v-2', task_status: 'FAILED', error: { code: 'OutputVideoSensitive', message: 'blocked' } },
      }),
    ).toMatchObject({
      id: 'v-2',
      status: 'failed',
      error: { code: 'OutputVideoSensitive', message: 'blocked' },
    });
    expect(normalizeVideoTask({ id: 'v-3', status: 'expired', error: 'took too long' }).error).toEqual({
      message: 'took too long',
    });
    expect(normalizeVideoTask({ id: 'v-4', status: 'running', error: null }).error).toBeUndefined();
  });

  it('maps unknown statuses to unknown (never final) and keeps the raw status', () => {
    const t = normalizeVideoTask({ id: 'v', status: 'warming_up' });
    expect(t).toMatchObject({ status: 'unknown', rawStatus: 'warming_up' });
    expect(isFinalVideoStatus(t.status)).toBe(false);
    expect(
      ['succeeded', 'failed', 'cancelled', 'expired'].every((s) =>
        isFinalVideoStatus(normalizeVideoTask({ status: s }).status),
      ),
    ).toBe(true);
    expect(['queued', 'running'].some((s) => isFinalVideoStatus(normalizeVideoTask({ status: s }).status))).toBe(false);
  });

  it('lists the media URLs of a create body with their item index', () => {
    const r = validateCreateTaskBody({
      model: 'm',
      content: [
        { type: 'text', text: 'x' },
        { type: 'image_url', image_url: { url: 'https://cdn.example.com/a.png' } },
        { type: 'audio_url', audio_url: { url: 'Asset://a' }, role: 'reference_audio' },
      ],
    });
    expect(r.ok && mediaUrlsOf(r.value)).toEqual([
      { index: 1, type: 'image_url', url: 'https://cdn.example.com/a.png' },
      { index: 2, type: 'audio_url', url: 'Asset://a' },
    ]);
  });
});

describe('review planning helpers', () => {
  it('infers the type from the extension, case-insensitive, ignoring query and fragment', () => {
    expect(assetTypeOf('https://cdn.example.com/a.JPEG?x=1')).toBe('Image');
    expect(assetTypeOf('https://cdn.example.com/a.mov#t=2')).toBe('Video');
    expect(assetTypeOf('https://cdn.example.com/a.MP3')).toBe('Audio');
    expect(assetTypeOf('https://cdn.example.com/a.mp4/')).toBeUndefined();
    expect(assetTypeOf('https://cdn.example.com/file?name=a.jpg')).toBeUndefined();
    expect(assetTypeOf('https://cdn.example.jpg')).toBeUndefined();
  });

  it('plans batches by type in first-seen order, de-duplicated, at most 50 each', () => {
    const imgs = Array.from({ length: 60 }, (_, i) => `https://cdn.example.com/i${i}.png`);
    const plan = planReviewBatches([
      'https://cdn.example.com/v.mp4',
      ...imgs,
      imgs[0]!,
      'https://cdn.example.com/s.wav',
    ]);
    expect(plan.map((b) => [b.assetType, b.urls.length])).toEqual([
      ['Video', 1],
      ['Image', 50],
      ['Image', 10],
      ['Audio', 1],
    ]);
    expect(plan[1]!.urls[0]).toBe(imgs[0]);
  });

  it('refuses URLs whose type cannot be told', () => {
    expect(() => planReviewBatches(['https://cdn.example.com/a.jpg', 'https://cdn.example.com/a.pdf'])).toThrow(
      RequestValidationError,
    );
    expect(() => planReviewBatches(['https://cdn.example.com/a.pdf'])).toThrow(
      /urls\[0\]: must end with a supported extension/,
    );
  });
});

describe('small parsers', () => {
  it('parses Retry-After', () => {
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter('Wed, 01 Jan 2025 00:00:05 GMT', now)).toBe(5_000);
    expect(parseRetryAfter('Tue, 31 Dec 2024 23:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter(['3', '9'], now)).toBe(3_000);
    expect(parseRetryAfter('-1', now)).toBeUndefined();
    expect(parseRetryAfter('1.5', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });

  it('tells public hosts from local ones', () => {
    for (const h of ['cdn.example.com', '8.8.8.8', '172.32.0.1', '2606:4700::1111', '100.128.0.1'])
      expect(nonPublicHostReason(h)).toBeUndefined();
    for (const h of [
      'localhost',
      'a.localhost',
      '127.0.0.1',
      '0.0.0.0',
      '10.0.0.1',
      '172.16.0.1',
      '192.168.0.1',
      '169.254.1.1',
      '::1',
      '::',
      'fd00::1',
      'fe80::1',
      '::ffff:10.0.0.1',
      '0x7f.1',
      '017700000001',
      '100.64.0.1',
      '2001:db8::1',
    ]) {
      expect(nonPublicHostReason(h), h).toBeDefined();
    }
  });
});

describe('clients return normalized records over HTTP', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer((req, res) => {
      if (req.url?.includes('/v1/task/get/'))
        return json(res, 200, {
          id: 'cgt-7',
          status: 'succeeded',
          content: { video_url: 'https://v.example.com/7.mp4' },
        });
      if (req.url?.endsWith('/async'))
        return json(res, 202, { code: 202, task_id: 'rt-7', track_id: 'echo', message: 'accepted' });
      if (req.url?.endsWith('/sync'))
        return json(res, 200, { code: 200, task_id: 'rt-8', status: 'completed', result: { items: [item({})] } });
      if (req.url?.includes('/v1/task/cancel/')) return json(res, 200, { id: 'cgt-7', status: 'cancelled' });
      return json(res, 200, {
        code: 0,
        data: { task_id: 'rt-7', status: 'processing', total_count: 2, done_count: 1 },
      });
    });
  });
  afterAll(() => server.close());

  it('video: getTask and cancelTask', async () => {
    const client = new VideoClient(videoConfig(server.url));
    expect(await client.getTask('cgt-7')).toMatchObject({
      id: 'cgt-7',
      status: 'succeeded',
      videoUrl: 'https://v.example.com/7.mp4',
    });
    expect(await client.cancelTask('cgt-7')).toEqual({ raw: { id: 'cgt-7', status: 'cancelled' } });
    await client.close();
  });

  it('review: submitAsync (no status means pending), submitSync and getTask', async () => {
    const client = new ReviewClient(reviewConfig(server.url));
    const accepted = await client.submitAsync({ images: ['https://cdn.example.com/a.jpg'] });
    expect(accepted).toMatchObject({ taskId: 'rt-7', status: 'pending', raw: { code: 202, task_id: 'rt-7' } });
    expect(accepted.trackId).toMatch(/^[0-9a-f]{32}$/);
    const sync = await client.submitSync({ images: ['https://cdn.example.com/a.jpg'] });
    expect(sync.items[0]).toMatchObject({ passed: true, assetUrl: 'Asset://as-1' });
    expect(await client.getTask('rt-7')).toMatchObject({
      taskId: 'rt-7',
      status: 'processing',
      totalCount: 2,
      doneCount: 1,
    });
    await client.close();
  });
});
