// The video generation service: create validation, Asset:// only when approved, downstream_final_url
// refused and expiring, lifecycle and outcomes, callbacks on each status change, cancel.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../src/index.js';
import { createBody, Http, reviewToEnd, sleep, startReceiver, videoHeaders, waitFor } from './support/sandbox-http.js';

let sb: Sandbox;
const http = new Http();
beforeAll(async () => {
  // The test's callback receiver listens on loopback (packages/sandbox/test/public-addresses.test.ts covers the refusal).
  sb = await startSandbox({ reviewDurationMs: 100, videoDurationMs: 400, allowPrivateUrls: true });
});
afterAll(async () => {
  await http.close();
  await sb.close();
});
beforeEach(() => sb.reset());

const create = (body: unknown) =>
  http.call('POST', `${sb.videoBaseUrl}/v1/task/create`, { headers: videoHeaders(sb), json: body });
const get = (id: string) => http.call('GET', `${sb.videoBaseUrl}/v1/task/get/${id}`, { headers: videoHeaders(sb) });
const text = { type: 'text', text: 'go' };
const image = (url: string, role?: string) => ({ type: 'image_url', image_url: { url }, ...(role ? { role } : {}) });

describe('create validation', () => {
  it.each([
    ['a missing model', { content: [text] }, 'model:'],
    ['an empty model', { model: '', content: [text] }, 'model: must not be empty'],
    ['a missing content', { model: 'm' }, 'content:'],
    ['an empty content', { model: 'm', content: [] }, 'content: must hold at least one item'],
    ['an unknown item type', { model: 'm', content: [{ type: 'pdf_url' }] }, 'content[0].type:'],
    [
      'a text item without text',
      { model: 'm', content: [{ type: 'text' }] },
      'content[0].text: is required when type=text',
    ],
    [
      'a flat url instead of the nested object',
      { model: 'm', content: [text, { type: 'image_url', url: 'https://a.example/x.jpg' }] },
      'content[1].image_url.url: is required when type=image_url',
    ],
    [
      'a nested object without url',
      { model: 'm', content: [text, { type: 'video_url', video_url: {} }] },
      'content[1].video_url.url:',
    ],
    [
      'a data: image',
      { model: 'm', content: [text, image('data:image/png;base64,iVBORw0KGgo=')] },
      'content[1].image_url.url: base64',
    ],
    [
      'a bare base64 image',
      { model: 'm', content: [text, image('iVBORw0KGgo'.repeat(10))] },
      'content[1].image_url.url: base64',
    ],
    [
      'an ftp URL',
      { model: 'm', content: [text, image('ftp://a.example/x.jpg')] },
      'content[1].image_url.url: must be a public http(s) URL or an Asset:// address',
    ],
    [
      'a role that is not a string',
      { model: 'm', content: [text, image('https://a.example/x.jpg'), { ...text, role: 7 }] },
      'content[2].role:',
    ],
    [
      'last_frame without first_frame',
      { model: 'm', content: [text, image('https://a.example/l.jpg', 'last_frame')] },
      'a first-frame and last-frame request needs an image_url item with role first_frame',
    ],
    [
      'two first frames in a first/last request',
      {
        model: 'm',
        content: [
          text,
          image('https://a.example/a.jpg', 'first_frame'),
          image('https://a.example/b.jpg', 'first_frame'),
          image('https://a.example/c.jpg', 'last_frame'),
        ],
      },
      'content[2].role: only one first_frame',
    ],
    [
      'a first/last frame on a video item',
      {
        model: 'm',
        content: [
          text,
          { type: 'video_url', video_url: { url: 'https://a.example/a.mp4' }, role: 'first_frame' },
          image('https://a.example/c.jpg', 'last_frame'),
        ],
      },
      'content[1].role: first_frame must be on an image_url item',
    ],
    [
      'first+last frames without text',
      {
        model: 'm',
        content: [image('https://a.example/a.jpg', 'first_frame'), image('https://a.example/b.jpg', 'last_frame')],
      },
      'content: a first-frame and last-frame request also needs a text item',
    ],
    ['a bad ratio', { model: 'm', content: [text], ratio: '16x9' }, 'ratio: must have the form <w>:<h>'],
    ['a ratio with a slash', { model: 'm', content: [text], ratio: '16/9' }, 'ratio: must have the form <w>:<h>'],
    ['a zero ratio', { model: 'm', content: [text], ratio: '0:9' }, 'ratio: must have the form <w>:<h>'],
    ['an empty resolution', { model: 'm', content: [text], resolution: ' ' }, 'resolution: must not be empty'],
    ['a string duration', { model: 'm', content: [text], duration: '5' }, 'duration:'],
    ['a negative duration', { model: 'm', content: [text], duration: -1 }, 'duration: must be a positive number'],
    ['a fractional seed', { model: 'm', content: [text], seed: 1.5 }, 'seed: must be an integer'],
    [
      'a bad callback_url',
      { model: 'm', content: [text], callback_url: 'nope' },
      'callback_url: must be an http(s) URL',
    ],
    [
      'an Asset:// never issued',
      { model: 'm', content: [text, image('Asset://asset-forged')] },
      'content[1].image_url.url: this Asset:// address was not issued',
    ],
  ])('rejects %s with 400 naming the field', async (_name, body, message) => {
    const r = await create(body);
    expect(r.status).toBe(400);
    expect(r.json.error.code).toBe('invalid_request');
    expect(r.json.error.message).toContain(message);
    expect(sb.videoTasks()).toHaveLength(0);
  });

  it('accepts a full first/last frame request with every optional field', async () => {
    const r = await create({
      model: 'm',
      content: [text, image('https://a.example/a.jpg', 'first_frame'), image('https://a.example/b.jpg', 'last_frame')],
      generate_audio: true,
      ratio: '9:16',
      duration: 5,
      watermark: false,
      resolution: '720p',
      seed: 42,
    });
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ id: expect.stringMatching(/^cgt-/) });
  });

  // The spec gives examples and known values, not closed sets: other values pass (docs/rules.md: decisions).
  it.each([
    ['an unknown role', { content: [text, image('https://a.example/x.jpg', 'hero')] }],
    [
      'a known role on another item type',
      {
        content: [text, { type: 'audio_url', audio_url: { url: 'https://a.example/x.mp3' }, role: 'reference_image' }],
      },
    ],
    ['a role on a text item', { content: [{ ...text, role: 'prompt' }] }],
    ['a first_frame alone', { content: [text, image('https://a.example/a.jpg', 'first_frame')] }],
    [
      'two first frames without a last frame',
      {
        content: [
          text,
          image('https://a.example/a.jpg', 'first_frame'),
          image('https://a.example/b.jpg', 'first_frame'),
        ],
      },
    ],
    ['resolution 1080P', { content: [text], resolution: '1080P' }],
    ['resolution 4k', { content: [text], resolution: '4k' }],
    ['resolution HD', { content: [text], resolution: 'HD' }],
    ['a keyword ratio', { content: [text], ratio: 'adaptive' }],
    ['a decimal ratio', { content: [text], ratio: '2.39:1' }],
    ['a fractional duration', { content: [text], duration: 4.5 }],
  ])('accepts %s', async (_name, body) => {
    const r = await create({ model: 'm', ...body });
    expect(r.status, r.text).toBe(200);
  });
});

describe('reviewed assets in create', () => {
  it('accepts an approved Asset:// and refuses a rejected one', async () => {
    const review = await reviewToEnd(http, sb, [
      'https://cdn.example.com/ok.jpg',
      'https://cdn.example.com/reject/no.jpg',
    ]);
    const [ok, rejected] = review.result.items as Array<{ asset_url: string }>;
    expect((await create(createBody(ok!.asset_url))).status).toBe(200);
    const r = await create(createBody(rejected!.asset_url));
    expect(r.status).toBe(400);
    expect(r.json.error.message).toContain('content[1].image_url.url: this asset did not pass review');
  });

  it('refuses a downstream_final_url (use asset_url), and the signed address expires', async () => {
    // Its signed addresses sit on its own loopback address.
    const short = await startSandbox({ reviewDurationMs: 50, assetUrlTtlMs: 400, allowPrivateUrls: true });
    try {
      const review = await reviewToEnd(http, short, ['https://cdn.example.com/sig.jpg']);
      const signed = review.result.items[0].downstream_final_url as string;
      const expires = Number(new URL(signed).searchParams.get('expires'));
      expect(expires).toBeGreaterThan(Date.now());
      expect(expires).toBeLessThanOrEqual(Date.now() + 400);

      const r = await http.call('POST', `${short.videoBaseUrl}/v1/task/create`, {
        headers: videoHeaders(short),
        json: createBody(signed),
      });
      expect(r.status).toBe(400);
      expect(r.json.error.message).toContain('content[1].image_url.url: is a downstream_final_url');
      expect(r.json.error.message).toContain('use asset_url');

      const before = await http.call('GET', signed);
      expect(before.status).toBe(200);
      expect(before.text.length).toBeGreaterThan(0);
      const tampered = new URL(signed);
      tampered.searchParams.set('expires', String(expires + 60_000));
      expect((await http.call('GET', tampered.href)).status).toBe(403);

      await sleep(expires - Date.now() + 20);
      const after = await http.call('GET', signed);
      expect(after.status).toBe(403);
      expect(after.json.error.message).toContain('expired');
    } finally {
      await short.close();
    }
  });
});

describe('video task lifecycle', () => {
  it('goes queued -> running -> succeeded with content.video_url, and the file can be fetched', async () => {
    const { json } = await create(createBody('https://cdn.example.com/x.jpg', { ratio: '16:9', duration: 5 }));
    const statuses: string[] = [];
    let record: Record<string, unknown> & { status: string } = { status: '' };
    while (!['succeeded', 'failed', 'expired', 'cancelled'].includes(record.status)) {
      record = (await get(json.id)).json;
      if (statuses.at(-1) !== record.status) statuses.push(record.status);
      await sleep(15);
    }
    expect(statuses).toEqual(['queued', 'running', 'succeeded']);
    expect(record).toMatchObject({
      id: json.id,
      model: 'video-model-1',
      status: 'succeeded',
      content: { video_url: expect.stringMatching(new RegExp(`^${sb.videoBaseUrl}/videos/[^/]+/${json.id}\\.mp4$`)) },
      created_at: expect.any(Number),
      updated_at: expect.any(Number),
      ratio: '16:9',
      duration: 5,
    });
    expect(record).not.toHaveProperty('error');
    expect((await http.call('GET', (record.content as { video_url: string }).video_url)).status).toBe(200);
    expect(sb.videoTasks()).toEqual([
      {
        id: json.id,
        status: 'succeeded',
        model: 'video-model-1',
        body: expect.any(Object),
        createdAt: expect.any(Number),
      },
    ]);
  });

  it('fails or expires by prompt hint, by URL hint and by setVideoOutcome', async () => {
    sb.setVideoOutcome({ model: 'flaky-model' }, 'failed', 100);
    sb.setVideoOutcome({ promptIncludes: 'too late' }, 'expired', 100);
    const cases: Array<[unknown, string, unknown]> = [
      [{ model: 'm', content: [{ type: 'text', text: 'please video-fail' }] }, 'failed', { code: 'GENERATION_FAILED' }],
      [{ model: 'm', content: [{ type: 'text', text: 'video-expire now' }] }, 'expired', { code: 'TASK_EXPIRED' }],
      [
        { model: 'm', content: [text, image('https://a.example/video-fail/x.jpg')] },
        'failed',
        { code: 'GENERATION_FAILED' },
      ],
      [{ model: 'flaky-model', content: [text] }, 'failed', { code: 'GENERATION_FAILED' }],
      [{ model: 'm', content: [{ type: 'text', text: 'too late' }] }, 'expired', { code: 'TASK_EXPIRED' }],
    ];
    for (const [body, status, error] of cases) {
      const { json } = await create(body);
      const record = await waitFor(async () => {
        const r = (await get(json.id)).json;
        return r.status === status ? r : undefined;
      });
      expect(record.error).toMatchObject(error as object);
      expect(record.content).toEqual({});
    }
  });

  it('cancels at the default POST /v1/task/cancel/{id}; cancelling a final task answers 200 with its status', async () => {
    sb.setVideoOutcome({ promptIncludes: 'long' }, 'succeeded', 60_000);
    const { json } = await create({ model: 'm', content: [{ type: 'text', text: 'long one' }] });
    const cancel = await http.call('POST', `${sb.videoBaseUrl}/v1/task/cancel/${json.id}`, {
      headers: videoHeaders(sb),
    });
    expect(cancel.status).toBe(200);
    expect(cancel.json).toEqual({ id: json.id, status: 'cancelled' });
    expect((await get(json.id)).json.status).toBe('cancelled');
    expect(sb.requests().at(-2)).toMatchObject({ operation: 'video.cancel', taskId: json.id });

    const again = await http.call('POST', `${sb.videoBaseUrl}/v1/task/cancel/${json.id}`, {
      headers: videoHeaders(sb),
    });
    expect(again.json).toEqual({ id: json.id, status: 'cancelled' });
    const unknown = await http.call('POST', `${sb.videoBaseUrl}/v1/task/cancel/cgt-nope`, {
      headers: videoHeaders(sb),
    });
    expect(unknown.status).toBe(404);
  });

  it('honours a configured cancel method and path', async () => {
    const custom = await startSandbox({ cancelMethod: 'DELETE', cancelPath: '/v1/task/{id}', videoDurationMs: 60_000 });
    try {
      const { json } = await http.call('POST', `${custom.videoBaseUrl}/v1/task/create`, {
        headers: videoHeaders(custom),
        json: createBody(),
      });
      const r = await http.call('DELETE', `${custom.videoBaseUrl}/v1/task/${json.id}`, {
        headers: videoHeaders(custom),
      });
      expect(r.json).toEqual({ id: json.id, status: 'cancelled' });
      const post = await http.call('POST', `${custom.videoBaseUrl}/v1/task/cancel/${json.id}`, {
        headers: videoHeaders(custom),
      });
      expect(post.status).toBe(404);
    } finally {
      await custom.close();
    }
  });

  it('answers 404 for an unknown task and for paths no entry point has', async () => {
    expect((await get('cgt-unknown')).status).toBe(404);
    expect(
      (await http.call('POST', `${sb.videoBaseUrl}/v1/not-emulated`, { headers: videoHeaders(sb), json: {} })).status,
    ).toBe(404);
  });
});

describe('video callbacks', () => {
  it('POSTs the record on every status change: running, then the final one', async () => {
    const receiver = await startReceiver();
    try {
      const callbackUrl = `${receiver.url}/callbacks/video/wf-1?sig=s`;
      const { json } = await create(createBody(undefined, { callback_url: callbackUrl }));
      await waitFor(() => receiver.received.length === 2, 5_000, 'two video callbacks');
      expect(receiver.received.map((r) => r.body.status)).toEqual(['running', 'succeeded']);
      expect(receiver.received.every((r) => r.path === '/callbacks/video/wf-1?sig=s')).toBe(true);
      expect(receiver.received[1]!.body).toEqual((await get(json.id)).json);

      const cancelled = await create(createBody(undefined, { callback_url: callbackUrl }));
      await http.call('POST', `${sb.videoBaseUrl}/v1/task/cancel/${cancelled.json.id}`, { headers: videoHeaders(sb) });
      await waitFor(() => receiver.received.length === 3 && sb.callbacks().length === 3, 5_000, 'cancel callback');
      expect(receiver.received[2]!.body).toMatchObject({ id: cancelled.json.id, status: 'cancelled' });
      expect(sb.callbacks().map((c) => [c.kind, c.status, c.outcome])).toEqual([
        ['video', 'running', 'delivered'],
        ['video', 'succeeded', 'delivered'],
        ['video', 'cancelled', 'delivered'],
      ]);
    } finally {
      await receiver.close();
    }
  });

  it('sends none without callback_url', async () => {
    const { json } = await create(createBody());
    await waitFor(async () => (await get(json.id)).json.status === 'succeeded');
    expect(sb.callbacks()).toHaveLength(0);
  });
});
