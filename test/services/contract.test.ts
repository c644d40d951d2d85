// Both clients against the sandbox (the emulator of both services) over real HTTP. The sandbox's request
// log is the witness: what actually reached each service, and how faults were reported back.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditRequestLog, startSandbox, type Sandbox } from 'temporal-review-video-sandbox';
import { ServiceError } from '../../src/services/errors.js';
import { ReviewClient } from '../../src/services/review/client.js';
import { isFinalReviewStatus, type ReviewTask } from '../../src/model/review/schemas.js';
import { VideoClient } from '../../src/services/video/client.js';
import { caught } from '../support/service-configs.js';

let sb: Sandbox;
let video: VideoClient;
let review: ReviewClient;
/** Same services, short time-out: for the hang faults. */
let impatientVideo: VideoClient;
let impatientReview: ReviewClient;

const videoCfg = (over: { apiKey?: string; timeoutMs?: number } = {}) => ({
  baseUrl: sb.videoBaseUrl,
  apiKey: over.apiKey ?? sb.apiKey,
  cancelMethod: 'POST' as const,
  cancelPath: '/v1/task/cancel/{id}',
  timeoutMs: over.timeoutMs ?? 5_000,
});
const reviewCfg = (over: { accessToken?: string; timeoutMs?: number } = {}) => ({
  baseUrl: sb.reviewBaseUrl,
  accessToken: over.accessToken ?? sb.accessToken,
  timeoutMs: over.timeoutMs ?? 5_000,
});
const prompt = (text: string) => ({ type: 'text' as const, text });
const createBody = (text = 'a lighthouse at dusk') => ({
  model: 'video-model-1',
  content: [prompt(text)],
  ratio: '16:9',
  duration: 5,
});

async function serviceError(call: Promise<unknown>): Promise<ServiceError> {
  const err = await caught(call);
  expect(err).toBeInstanceOf(ServiceError);
  return err as ServiceError;
}

async function reviewUntilFinal(taskId: string): Promise<ReviewTask> {
  for (let i = 0; i < 200; i++) {
    const task = await review.getTask(taskId);
    if (isFinalReviewStatus(task.status)) return task;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`review task ${taskId} did not finish`);
}

beforeAll(async () => {
  sb = await startSandbox({ reviewDurationMs: 50, videoDurationMs: 100 });
  video = new VideoClient(videoCfg());
  review = new ReviewClient(reviewCfg());
  impatientVideo = new VideoClient(videoCfg({ timeoutMs: 300 }));
  impatientReview = new ReviewClient(reviewCfg({ timeoutMs: 300 }));
});
afterAll(async () => {
  await Promise.all([video, review, impatientVideo, impatientReview].map((c) => c?.close()));
  await sb?.close();
});

describe('the happy path over both services', () => {
  it('review (async) -> approved Asset:// -> create -> get -> cancel', async () => {
    const urls = ['https://cdn.example.com/contract/person.jpg', 'https://cdn.example.com/contract/scene.png'];
    const accepted = await review.submitAsync({ images: urls, group_id: 'people-1', group_source: 'real_person' });
    expect(accepted.status).toBe('pending');
    const done = await reviewUntilFinal(accepted.taskId);
    expect(done.status).toBe('completed');
    expect(done.items.map((i) => [i.sourceUrl, i.passed])).toEqual(urls.map((u) => [u, true]));
    const assetUrls = done.items.map((i) => i.assetUrl!);
    for (const a of assetUrls) expect(a).toMatch(/^Asset:\/\//);

    // A video that takes a minute: still unfinished when the get and the cancel come, however slow the machine.
    sb.setVideoOutcome({ promptIncludes: 'from the first frame to the last' }, 'succeeded', 60_000);
    const { id } = await video.createTask({
      model: 'video-model-1',
      content: [
        prompt('from the first frame to the last'),
        { type: 'image_url', image_url: { url: assetUrls[0]! }, role: 'first_frame' },
        { type: 'image_url', image_url: { url: assetUrls[1]! }, role: 'last_frame' },
      ],
    });
    const task = await video.getTask(id);
    expect(task.id).toBe(id);
    expect(['queued', 'running']).toContain(task.status);
    await video.cancelTask(id);
    expect(sb.videoTasks().find((t) => t.id === id)?.status).toBe('cancelled');
  });

  it('review (sync) reports a rejected item as not passed, with its error', async () => {
    const url = 'https://cdn.example.com/contract/unauthorized-face.jpg';
    sb.setReviewVerdict(url, { passed: false, errorCode: 'FACE_NOT_AUTHORIZED', errorMessage: 'no consent on file' });
    const task = await review.submitSync({ images: [url] });
    expect(task.status).toBe('completed');
    expect(task.items[0]).toMatchObject({
      passed: false,
      errorCode: 'FACE_NOT_AUTHORIZED',
      errorMessage: 'no consent on file',
    });
  });
});

describe('faults are classified as the spec requires', () => {
  it('500 after commit on create is ambiguous: the task exists although the call failed', async () => {
    sb.addFault({
      operation: 'video.create',
      match: { model: 'commit-500' },
      fault: { type: 'status', status: 500, commit: true },
    });
    const before = sb.videoTasks().length;
    const err = await serviceError(video.createTask({ ...createBody(), model: 'commit-500' }));
    expect(err).toMatchObject({
      operation: 'video.create',
      kind: 'http',
      status: 500,
      ambiguous: true,
      retryable: true,
    });
    expect(err.message).toMatch(/^video\.create failed: HTTP 500 \(ambiguous: the request may have reached the server/);
    expect(sb.videoTasks().length).toBe(before + 1);
  });

  it('a hang on create is a time-out, ambiguous', async () => {
    sb.addFault({
      operation: 'video.create',
      match: { model: 'hang' },
      fault: { type: 'hang', ms: 1_500, commit: true },
    });
    const err = await serviceError(impatientVideo.createTask({ ...createBody(), model: 'hang' }));
    expect(err).toMatchObject({ kind: 'timeout', ambiguous: true, retryable: true });
  });

  it('a hang on async review submit is a time-out, ambiguous', async () => {
    const url = 'https://cdn.example.com/contract/hang.jpg';
    sb.addFault({ operation: 'review.submitAsync', match: { url }, fault: { type: 'hang', ms: 1_500 } });
    expect(await serviceError(impatientReview.submitAsync({ images: [url] }))).toMatchObject({
      kind: 'timeout',
      ambiguous: true,
    });
  });

  it('a reset after commit is ambiguous; a malformed 2xx is ambiguous', async () => {
    sb.addFault({
      operation: 'review.submitAsync',
      match: { url: 'reset.jpg' },
      fault: { type: 'reset', commit: true },
    });
    sb.addFault({
      operation: 'video.create',
      match: { model: 'malformed' },
      fault: { type: 'malformed', commit: true },
    });
    expect(
      await serviceError(review.submitAsync({ images: ['https://cdn.example.com/contract/reset.jpg'] })),
    ).toMatchObject({ kind: 'network', ambiguous: true });
    expect(await serviceError(video.createTask({ ...createBody(), model: 'malformed' }))).toMatchObject({
      kind: 'malformed-response',
      status: 200,
      ambiguous: true,
    });
  });

  it('400 is final: a fault, and the sandbox refusing an Asset:// it never issued', async () => {
    sb.addFault({ operation: 'video.create', match: { model: 'bad-400' }, fault: { type: 'status', status: 400 } });
    expect(await serviceError(video.createTask({ ...createBody(), model: 'bad-400' }))).toMatchObject({
      status: 400,
      ambiguous: false,
      retryable: false,
    });
    const err = await serviceError(
      video.createTask({
        model: 'video-model-1',
        content: [prompt('x'), { type: 'image_url', image_url: { url: 'Asset://never-issued' } }],
      }),
    );
    expect(err).toMatchObject({ kind: 'http', status: 400, ambiguous: false, retryable: false });
    expect(err.message).toContain('was not issued by the asset review service');
  });

  it('401 is final on both services (wrong key, wrong token), and no error shows a secret', async () => {
    const wrongVideo = new VideoClient(videoCfg({ apiKey: 'sk-WRONG-KEY-0000' }));
    const wrongReview = new ReviewClient(reviewCfg({ accessToken: 'at-WRONG-TOKEN-0000' }));
    const errs = [await serviceError(wrongVideo.getTask('cgt-x')), await serviceError(wrongReview.getTask('rt-x'))];
    await Promise.all([wrongVideo.close(), wrongReview.close()]);
    for (const err of errs) {
      expect(err).toMatchObject({ kind: 'http', status: 401, ambiguous: false, retryable: false });
      for (const secret of ['sk-WRONG-KEY-0000', 'at-WRONG-TOKEN-0000', sb.apiKey, sb.accessToken]) {
        expect(`${err.message} ${JSON.stringify(err)}`).not.toContain(secret);
      }
    }
  });

  it('429 with Retry-After on a review query is retryable and carries the delay', async () => {
    const accepted = await review.submitAsync({ images: ['https://cdn.example.com/contract/busy.jpg'] });
    sb.addFault({
      operation: 'review.query',
      match: { taskId: accepted.taskId },
      fault: { type: 'status', status: 429, retryAfter: '3' },
    });
    expect(await serviceError(review.getTask(accepted.taskId))).toMatchObject({
      status: 429,
      ambiguous: false,
      retryable: true,
      retryAfterMs: 3000,
    });
  });
});

describe('what reached the services (sandbox request log)', () => {
  it('no bearer on review, no review headers on video; every track id 32 lowercase hex and unique', () => {
    const log = sb.requests();
    const reviewCalls = log.filter((e) => e.service === 'review');
    const videoCalls = log.filter((e) => e.service === 'video');
    expect(reviewCalls.length).toBeGreaterThan(5);
    expect(videoCalls.length).toBeGreaterThan(5);
    for (const e of reviewCalls) {
      expect(e.headers.authorization).toBeUndefined();
      expect(e.headers['x-access-token']).toBeDefined();
      expect(e.headers['x-track-id']).toMatch(/^[0-9a-f]{32}$/);
    }
    for (const e of videoCalls) {
      expect(e.headers['x-access-token']).toBeUndefined();
      expect(e.headers['x-track-id']).toBeUndefined();
      expect(e.headers.authorization).toMatch(/^Bearer \S+$/);
    }
    const trackIds = reviewCalls.map((e) => e.headers['x-track-id']);
    expect(new Set(trackIds).size).toBe(trackIds.length);
    const authViolations = auditRequestLog(log, { minQueryIntervalMs: 0 }).filter((v) => /auth|track/i.test(v.rule));
    expect(authViolations).toEqual([]);
  });
});
