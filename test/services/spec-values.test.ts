// Both clients against the sandbox over real HTTP, for the values where the spec gives examples or known
// values (docs/rules.md: decisions where the spec is silent): the client sends them and the sandbox, which reads
// the spec on its own, accepts them. And the public rule end to end: with the default setting a private
// address never leaves the client; with allowPrivateUrls on both sides it goes through.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditRequestLog, startSandbox, type Sandbox } from 'temporal-review-video-sandbox';
import { RequestValidationError } from '../../src/model/validation.js';
import { ReviewClient } from '../../src/services/review/client.js';
import { isFinalReviewStatus, type ReviewTask } from '../../src/model/review/schemas.js';
import { VideoClient } from '../../src/services/video/client.js';
import type { CreateTaskBody } from '../../src/model/video/schemas.js';
import { caught } from '../support/service-configs.js';

let strict: Sandbox;
let lenient: Sandbox;
const clients: Array<{ close(): Promise<void> }> = [];
const videoFor = (sb: Sandbox, allowPrivateUrls = false) => {
  const c = new VideoClient({
    baseUrl: sb.videoBaseUrl,
    apiKey: sb.apiKey,
    cancelMethod: 'POST',
    cancelPath: '/v1/task/cancel/{id}',
    timeoutMs: 5_000,
    allowPrivateUrls,
  });
  clients.push(c);
  return c;
};
const reviewFor = (sb: Sandbox, allowPrivateUrls = false) => {
  const c = new ReviewClient({
    baseUrl: sb.reviewBaseUrl,
    accessToken: sb.accessToken,
    timeoutMs: 5_000,
    allowPrivateUrls,
  });
  clients.push(c);
  return c;
};

beforeAll(async () => {
  strict = await startSandbox({ reviewDurationMs: 50, videoDurationMs: 60_000 });
  // Callbacks would go to loopback addresses where nothing listens: tasks that outlast the test send none.
  lenient = await startSandbox({ reviewDurationMs: 60_000, videoDurationMs: 60_000, allowPrivateUrls: true });
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await Promise.all([strict?.close(), lenient?.close()]);
});

async function approved(review: ReviewClient, urls: string[]): Promise<string[]> {
  const accepted = await review.submitAsync({ images: urls });
  for (let i = 0; i < 200; i++) {
    const task: ReviewTask = await review.getTask(accepted.taskId);
    if (isFinalReviewStatus(task.status)) return task.items.map((item) => item.assetUrl!);
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('review did not finish');
}

describe('values the spec gives as examples or known values pass, client -> sandbox', () => {
  const text = { type: 'text', text: 'a lighthouse at dusk' };
  const image = (url: string, role?: string) => ({ type: 'image_url', image_url: { url }, ...(role ? { role } : {}) });

  it.each([
    ['an unknown role', [text, image('https://cdn.example.com/spec/a.jpg', 'style_reference')], {}],
    [
      'a known role on another item type',
      [text, { type: 'audio_url', audio_url: { url: 'https://cdn.example.com/spec/a.mp3' }, role: 'reference_image' }],
      {},
    ],
    ['a role on a text item', [{ ...text, role: 'prompt' }], {}],
    ['a first_frame alone', [text, image('https://cdn.example.com/spec/first.jpg', 'first_frame')], {}],
    ['resolution 1080P', [text], { resolution: '1080P' }],
    ['resolution 4k', [text], { resolution: '4k' }],
    ['a keyword ratio', [text], { ratio: 'adaptive' }],
    ['a decimal ratio and duration', [text], { ratio: '2.39:1', duration: 7.5 }],
  ])('create with %s', async (_name, content, extra) => {
    const body = { model: 'video-model-1', content, ...extra } as CreateTaskBody;
    const { id } = await videoFor(strict).createTask(body);
    expect(strict.videoTasks().find((t) => t.id === id)?.body).toEqual(body);
  });

  it('create with reviewed Asset:// addresses under unknown and cross-type roles', async () => {
    const [a, b] = await approved(reviewFor(strict), [
      'https://cdn.example.com/spec/r1.jpg',
      'https://cdn.example.com/spec/r2.jpg',
    ]);
    await videoFor(strict).createTask({
      model: 'video-model-1',
      content: [text, image(a!, 'character'), { type: 'video_url', video_url: { url: b! }, role: 'reference_image' }],
    } as CreateTaskBody);
  });

  it.each(['real_person', 'celebrity', ''])(
    'review submit with group_source %j and no group_id (sync and async)',
    async (groupSource) => {
      const review = reviewFor(strict);
      // Two media, so that the second submit is not the first one sent again (the audit's duplicate rule).
      const accepted = await review.submitAsync({
        images: ['https://cdn.example.com/spec/g-async.jpg'],
        group_source: groupSource,
      });
      expect(accepted.taskId).toBeTruthy();
      const done = await review.submitSync({
        images: ['https://cdn.example.com/spec/g-sync.jpg'],
        group_source: groupSource,
      });
      expect(done.taskId).toBeTruthy();
    },
  );

  it('leaves an audit with no violations', () => {
    expect(auditRequestLog(strict.requests(), { minQueryIntervalMs: 0 })).toEqual([]);
  });
});

describe('the public rule end to end', () => {
  it('the default client refuses a private callback_url or media URL: nothing reaches the service', async () => {
    const before = strict.requests().length;
    const video = videoFor(strict);
    const review = reviewFor(strict);
    const create = await caught(
      video.createTask({
        model: 'm',
        content: [{ type: 'text', text: 'x' }],
        callback_url: 'http://127.0.0.1:8787/cb',
      }),
    );
    expect((create as RequestValidationError).issues.map((i) => i.field)).toEqual(['callback_url']);
    const submit = await caught(
      review.submitAsync({ images: ['http://192.168.0.10/a.jpg'], callback_url: 'http://[::1]:8787/cb' }),
    );
    expect((submit as RequestValidationError).issues.map((i) => i.field)).toEqual(['images[0]', 'callback_url']);
    expect(strict.requests()).toHaveLength(before);
  });

  it('with allowPrivateUrls on the clients and the sandbox, private media and callback addresses go through', async () => {
    const accepted = await reviewFor(lenient, true).submitAsync({
      images: ['http://10.0.0.7/a.jpg'],
      callback_url: 'http://127.0.0.1:9/cb',
    });
    expect(accepted.taskId).toBeTruthy();
    const created = await videoFor(lenient, true).createTask({
      model: 'm',
      content: [
        { type: 'text', text: 'x' },
        { type: 'image_url', image_url: { url: 'http://localhost/a.png' } },
      ],
      callback_url: 'http://127.0.0.1:9/cb',
    });
    expect(created.id).toBeTruthy();
  });
});
