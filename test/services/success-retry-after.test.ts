// A Retry-After on a successful answer (spec, Limits: "must be obeyed when present") reaches the caller as
// `retryAfterMs` on the task, over real HTTP; and the sync review submit, which blocks until the review
// ends, takes a per-call deadline that overrides the client's in both directions.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ServiceError } from '../../src/services/errors.js';
import { ReviewClient } from '../../src/services/review/client.js';
import { VideoClient } from '../../src/services/video/client.js';
import { startSandbox } from 'temporal-review-video-sandbox';
import { caught, reviewConfig, videoConfig } from '../support/service-configs.js';
import { defaultHandler, json, startTestServer, type TestServer } from '../support/test-server.js';

const processing = { code: 200, task_id: 'rt-1', status: 'processing', total_count: 2, done_count: 1 };
const reviewBody = { images: ['https://cdn.example.com/a.jpg'] };

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
beforeEach(() => server.handle(defaultHandler));
afterAll(() => server.close());

describe('Retry-After on a 200', () => {
  it('review getTask returns it in ms, in delta-seconds and HTTP-date form', async () => {
    const review = new ReviewClient(reviewConfig(server.url));
    try {
      server.handle((_req, res) => json(res, 200, processing, { 'retry-after': '3' }));
      expect(await review.getTask('rt-1')).toMatchObject({ status: 'processing', doneCount: 1, retryAfterMs: 3_000 });

      const at = new Date(Date.now() + 20_000).toUTCString();
      server.handle((_req, res) => json(res, 200, processing, { 'retry-after': at }));
      const dated = await review.getTask('rt-1');
      // HTTP-dates have whole seconds: up to 1 s earlier than asked, and time passes.
      expect(dated.retryAfterMs).toBeGreaterThan(17_000);
      expect(dated.retryAfterMs).toBeLessThanOrEqual(20_000);
    } finally {
      await review.close();
    }
  });

  it('review submitSync returns it on an answer given before the review ended', async () => {
    const review = new ReviewClient(reviewConfig(server.url));
    try {
      server.handle((_req, res) => json(res, 200, processing, { 'retry-after': '4' }));
      expect(await review.submitSync(reviewBody)).toMatchObject({
        taskId: 'rt-1',
        status: 'processing',
        retryAfterMs: 4_000,
      });
    } finally {
      await review.close();
    }
  });

  it('video getTask returns it in ms, in delta-seconds and HTTP-date form', async () => {
    const video = new VideoClient(videoConfig(server.url));
    try {
      server.handle((_req, res) => json(res, 200, { id: 'cgt-1', status: 'running' }, { 'retry-after': '5' }));
      expect(await video.getTask('cgt-1')).toMatchObject({ id: 'cgt-1', status: 'running', retryAfterMs: 5_000 });

      server.handle((_req, res) =>
        json(
          res,
          200,
          { id: 'cgt-1', status: 'running' },
          { 'retry-after': new Date(Date.now() + 10_000).toUTCString() },
        ),
      );
      const dated = await video.getTask('cgt-1');
      expect(dated.retryAfterMs).toBeGreaterThan(7_000);
      expect(dated.retryAfterMs).toBeLessThanOrEqual(10_000);
    } finally {
      await video.close();
    }
  });

  it('is absent without a header, and for a value that is neither seconds nor a date', async () => {
    const review = new ReviewClient(reviewConfig(server.url));
    const video = new VideoClient(videoConfig(server.url));
    try {
      expect('retryAfterMs' in (await review.getTask('rt-1'))).toBe(false);
      expect('retryAfterMs' in (await video.getTask('cgt-1'))).toBe(false);
      server.handle((_req, res) => json(res, 200, processing, { 'retry-after': 'soon' }));
      expect('retryAfterMs' in (await review.getTask('rt-1'))).toBe(false);
    } finally {
      await review.close();
      await video.close();
    }
  });

  it('comes through from the sandbox configured to pace processing answers', async () => {
    const sb = await startSandbox({ reviewDurationMs: 60_000, reviewProcessingRetryAfter: '2' });
    const review = new ReviewClient({ baseUrl: sb.reviewBaseUrl, accessToken: sb.accessToken, timeoutMs: 2_000 });
    try {
      const { taskId } = await review.submitAsync({ images: ['https://cdn.example.com/paced.jpg'] });
      const task = await review.getTask(taskId);
      expect(task).toMatchObject({ taskId, retryAfterMs: 2_000 });
      expect(['pending', 'processing']).toContain(task.status);
    } finally {
      await review.close();
      await sb.close();
    }
  });
});

describe('submitSync per-call time-out', () => {
  /** Answers the sync submit after `ms`. */
  const slowSync = (ms: number) =>
    server.handle((_req, res) => {
      setTimeout(() => json(res, 200, { code: 200, task_id: 'rt-9', status: 'completed', result: { items: [] } }), ms);
    });

  it('a longer deadline than the client default lets a slow review finish', async () => {
    const review = new ReviewClient(reviewConfig(server.url, { timeoutMs: 300 }));
    try {
      slowSync(800);
      const err = await caught(review.submitSync(reviewBody));
      expect(err).toBeInstanceOf(ServiceError);
      expect(err).toMatchObject({ kind: 'timeout', ambiguous: true });
      expect((err as ServiceError).message).toContain('within 300 ms');

      // Past the pool's own backstop for the default (deadline + 1 s): the per-call deadline moves it too.
      slowSync(1_800);
      const task = await review.submitSync(reviewBody, { timeoutMs: 4_000 });
      expect(task).toMatchObject({ taskId: 'rt-9', status: 'completed' });
    } finally {
      await review.close();
    }
  });

  it('a shorter deadline than the client default gives up sooner', async () => {
    const review = new ReviewClient(reviewConfig(server.url, { timeoutMs: 5_000 }));
    try {
      // The answer comes at 1.5 s: a call still bound by the 5 s default would get it and succeed, so a
      // time-out here means the 200 ms deadline ended the call before the server answered.
      slowSync(1_500);
      const err = await caught(review.submitSync(reviewBody, { timeoutMs: 200 }));
      expect(err).toMatchObject({ kind: 'timeout', ambiguous: true });
      expect((err as ServiceError).message).toContain('within 200 ms');
      // The client's own default still holds for the next call.
      slowSync(300);
      expect(await review.submitSync(reviewBody)).toMatchObject({ taskId: 'rt-9' });
    } finally {
      await review.close();
    }
  });

  it('refuses a deadline that is not a positive number, before sending anything', async () => {
    const review = new ReviewClient(reviewConfig(server.url));
    try {
      const before = server.received.length;
      for (const timeoutMs of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
        await expect(review.submitSync(reviewBody, { timeoutMs })).rejects.toThrow(TypeError);
      }
      expect(server.received.length).toBe(before);
    } finally {
      await review.close();
    }
  });
});
