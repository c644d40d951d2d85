// Every rule of the create body (spec: create request body, content item, material rules) is checked
// before sending: each case shows the field and the rule, and a real local server proves that no request
// (not even a connection) left the process.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RequestValidationError } from '../../src/model/validation.js';
import { VideoClient } from '../../src/services/video/client.js';
import type { CreateTaskBody } from '../../src/model/video/schemas.js';
import { caught, videoConfig } from '../support/service-configs.js';
import { PRIVATE_HOSTS } from '../support/private-hosts.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

const text = { type: 'text', text: 'a cat on a skateboard' };
const image = (url: string, role?: string, rawRole?: unknown) => ({
  type: 'image_url',
  image_url: { url },
  ...(role ? { role } : {}),
  ...(rawRole !== undefined ? { role: rawRole } : {}),
});
const body = (over: Record<string, unknown>) => ({ model: 'video-model-1', content: [text], ...over });
const withItem = (item: unknown) => body({ content: [text, item] });
const BASE64_PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

// [what is broken, body, field, rule text]
const cases: Array<[string, unknown, string, string]> = [
  ['model is required', { content: [text] }, 'model', 'is required (the model name)'],
  ['model is non-empty', body({ model: ' ' }), 'model', 'must be a non-empty model name'],
  ['content is required', { model: 'm' }, 'content', 'is required (a non-empty array of content items)'],
  ['content is non-empty', body({ content: [] }), 'content', 'must be a non-empty array of content items'],
  ['content is an array', body({ content: text }), 'content', 'must be an array of content items'],
  [
    'item type is required',
    withItem({ image_url: { url: 'https://cdn.example.com/a.png' } }),
    'content[1].type',
    'is required (one of text, image_url, video_url, audio_url)',
  ],
  [
    'item type is known',
    withItem({ type: 'file_url', file_url: { url: 'https://cdn.example.com/a.pdf' } }),
    'content[1].type',
    'must be one of text, image_url, video_url, audio_url',
  ],
  ['text item needs text', body({ content: [{ type: 'text' }] }), 'content[0].text', 'is required (the prompt)'],
  [
    'text is non-empty',
    body({ content: [{ type: 'text', text: '' }] }),
    'content[0].text',
    'must be a non-empty prompt',
  ],
  [
    'image_url item needs image_url.url',
    withItem({ type: 'image_url', image_url: {} }),
    'content[1].image_url.url',
    'is required (an http(s) URL or an Asset:// address)',
  ],
  [
    'missing image_url object is reported at its url',
    withItem({ type: 'image_url' }),
    'content[1].image_url.url',
    'is required',
  ],
  ['video_url item needs video_url.url', withItem({ type: 'video_url' }), 'content[1].video_url.url', 'is required'],
  [
    'audio_url item needs a non-empty audio_url.url',
    withItem({ type: 'audio_url', audio_url: { url: '' } }),
    'content[1].audio_url.url',
    'is required',
  ],
  [
    'image_url is an object',
    withItem({ type: 'image_url', image_url: 'https://cdn.example.com/a.png' }),
    'content[1].image_url',
    'must be an object { url }',
  ],
  [
    'role is a string',
    withItem(image('https://cdn.example.com/a.png', undefined, 7)),
    'content[1].role',
    'must be a string',
  ],
  [
    'data: URLs are refused',
    withItem(image(`data:image/png;base64,${BASE64_PNG}`)),
    'content[1].image_url.url',
    'base64 media is not supported',
  ],
  ['bare base64 is refused', withItem(image(BASE64_PNG)), 'content[1].image_url.url', 'base64 media is not supported'],
  [
    'media URL is http(s) or Asset://',
    withItem({ type: 'audio_url', audio_url: { url: 'ftp://cdn.example.com/a.mp3' } }),
    'content[1].audio_url.url',
    'must be a public http(s) URL or an Asset:// address',
  ],
  [
    'relative media URL is refused',
    withItem(image('/images/a.png')),
    'content[1].image_url.url',
    'must be a public http(s) URL or an Asset:// address',
  ],
  [
    'last_frame needs first_frame',
    body({ content: [text, image('https://cdn.example.com/b.png', 'last_frame')] }),
    'content',
    'a first/last-frame request needs an image_url item with role first_frame',
  ],
  [
    'first/last frames are image_url items',
    body({
      content: [
        text,
        { type: 'video_url', video_url: { url: 'https://cdn.example.com/a.mp4' }, role: 'first_frame' },
        image('https://cdn.example.com/b.png', 'last_frame'),
      ],
    }),
    'content',
    'a first/last-frame request needs an image_url item with role first_frame',
  ],
  [
    'one first_frame in a first/last request',
    body({
      content: [
        text,
        image('https://cdn.example.com/a.png', 'first_frame'),
        image('https://cdn.example.com/c.png', 'first_frame'),
        image('https://cdn.example.com/b.png', 'last_frame'),
      ],
    }),
    'content',
    'a first/last-frame request has exactly one item with role first_frame (found 2)',
  ],
  [
    'first/last frame needs a text item',
    body({
      content: [
        image('https://cdn.example.com/a.png', 'first_frame'),
        image('https://cdn.example.com/b.png', 'last_frame'),
      ],
    }),
    'content',
    'a first/last-frame request needs a text item (the prompt)',
  ],
  [
    'ratio is <w>:<h> or one keyword',
    body({ ratio: '16/9' }),
    'ratio',
    'must have the form <w>:<h> with positive numbers (e.g. 16:9) or be one keyword',
  ],
  ['ratio parts are positive', body({ ratio: '0:9' }), 'ratio', 'must have the form <w>:<h> with positive numbers'],
  ['ratio is not empty', body({ ratio: '' }), 'ratio', 'must have the form <w>:<h>'],
  ['ratio is one token', body({ ratio: 'wide screen' }), 'ratio', 'must have the form <w>:<h>'],
  ['resolution is not empty', body({ resolution: ' ' }), 'resolution', 'must be a non-empty string, e.g. 720p'],
  ['resolution is a string', body({ resolution: 1080 }), 'resolution', 'must be a string'],
  ['duration is positive', body({ duration: 0 }), 'duration', 'must be a positive number of seconds'],
  ['duration is a number', body({ duration: '5' }), 'duration', 'must be a positive number of seconds'],
  ['seed is an integer', body({ seed: 1.5 }), 'seed', 'must be an integer'],
  [
    'callback_url is http(s)',
    body({ callback_url: 'ftp://hooks.example.com/x' }),
    'callback_url',
    'must be a public http(s) URL',
  ],
  // Public: every kind of private address, in every URL field (test/support/private-hosts.ts).
  ...PRIVATE_HOSTS.flatMap(([kind, host]): Array<[string, unknown, string, string]> => [
    [
      `image_url.url at ${kind}`,
      withItem(image(`http://${host}/a.png`)),
      'content[1].image_url.url',
      'must be a public http(s) URL or an Asset:// address (',
    ],
    [
      `video_url.url at ${kind}`,
      withItem({ type: 'video_url', video_url: { url: `https://${host}:8443/a.mp4` } }),
      'content[1].video_url.url',
      'must be a public http(s) URL or an Asset:// address (',
    ],
    [
      `audio_url.url at ${kind}`,
      withItem({ type: 'audio_url', audio_url: { url: `http://user@${host}/a.mp3` } }),
      'content[1].audio_url.url',
      'must be a public http(s) URL or an Asset:// address (',
    ],
    [
      `callback_url at ${kind}`,
      body({ callback_url: `http://${host}:8787/callbacks/video` }),
      'callback_url',
      'must be a public http(s) URL (',
    ],
  ]),
  ['generate_audio is a boolean', body({ generate_audio: 'yes' }), 'generate_audio', 'must be a boolean'],
  ['watermark is a boolean', body({ watermark: 1 }), 'watermark', 'must be a boolean'],
  ['body is an object', null, '(body)', 'must be a JSON object'],
];

describe('VideoClient.createTask validation: nothing is sent', () => {
  let server: TestServer;
  let client: VideoClient;
  beforeAll(async () => {
    server = await startTestServer();
    client = new VideoClient(videoConfig(server.url));
  });
  afterEach(() => {
    expect(server.received).toHaveLength(0);
    expect(server.connections()).toBe(0);
  });
  afterAll(async () => {
    await client.close();
    await server.close();
  });

  it.each(cases)('%s', async (_name, input, field, rule) => {
    const err = await caught(client.createTask(input as CreateTaskBody));
    expect(err).toBeInstanceOf(RequestValidationError);
    const { issues, message } = err as RequestValidationError;
    const issue = issues.find((i) => i.field === field && i.rule.includes(rule));
    expect(issue, JSON.stringify(issues)).toBeDefined();
    expect(message).toContain(`${issue!.field}: ${issue!.rule}`);
    expect(message).toMatch(/^video\.create rejected before sending/);
  });

  it('reports every broken rule at once', async () => {
    const err = (await caught(
      client.createTask(
        body({
          model: '',
          ratio: '16/9',
          seed: 0.5,
          content: [text, image('data:image/png;base64,AAAA')],
        }) as CreateTaskBody,
      ),
    )) as RequestValidationError;
    expect(err.issues.map((i) => i.field)).toEqual(['model', 'content[1].image_url.url', 'ratio', 'seed']);
    for (const i of err.issues) expect(err.message).toContain(`${i.field}: ${i.rule}`);
  });

  it.each([
    ['getTask', (c: VideoClient) => c.getTask('')],
    ['cancelTask', (c: VideoClient) => c.cancelTask('')],
  ])('%s needs a non-empty id', async (_name, call) => {
    const err = (await caught(call(client))) as RequestValidationError;
    expect(err).toBeInstanceOf(RequestValidationError);
    expect(err.issues).toEqual([{ field: 'id', rule: 'is required (a non-empty string)' }]);
  });
});

describe('VideoClient.createTask validation: valid bodies are sent', () => {
  let server: TestServer;
  let client: VideoClient;
  beforeAll(async () => {
    server = await startTestServer();
    client = new VideoClient(videoConfig(server.url));
  });
  afterAll(async () => {
    await client.close();
    await server.close();
  });

  it('sends a valid body unchanged, unknown top-level fields included', async () => {
    const valid = {
      model: 'video-model-1',
      content: [
        text,
        image('https://cdn.example.com/a.png', 'first_frame'),
        image('Asset://asset-123', 'last_frame'),
        { type: 'video_url', video_url: { url: 'https://cdn.example.com/a.mp4' }, role: 'reference_video' },
        { type: 'audio_url', audio_url: { url: 'Asset://asset-456' }, role: 'reference_audio' },
      ],
      ratio: '16:9',
      resolution: '720p',
      duration: 5,
      seed: -1,
      generate_audio: true,
      watermark: false,
      callback_url: 'https://hooks.example.com/video?sig=abc',
      service_tier: 'flex',
      extra: { nested: [1, 2] },
    };
    const created = await client.createTask(valid as CreateTaskBody);
    expect(created.id).toBe('cgt-1');
    expect(server.received).toHaveLength(1);
    expect(JSON.parse(server.received[0]!.body)).toEqual(valid);
  });

  // Where the spec gives examples or known values, other values pass (docs/rules.md: decisions where the spec is silent).
  it.each([
    ['an unknown role', withItem(image('https://cdn.example.com/a.png', 'style_reference'))],
    [
      'a known role on another item type',
      withItem({ type: 'audio_url', audio_url: { url: 'https://cdn.example.com/a.mp3' }, role: 'reference_image' }),
    ],
    ['a role on a text item', body({ content: [{ ...text, role: 'prompt' }] })],
    ['a first_frame alone', withItem(image('https://cdn.example.com/a.png', 'first_frame'))],
    ['resolution 1080P', body({ resolution: '1080P' })],
    ['resolution 4k', body({ resolution: '4k' })],
    ['a keyword ratio', body({ ratio: 'adaptive' })],
    ['a decimal ratio', body({ ratio: '2.39:1' })],
    ['a fractional duration', body({ duration: 4.5 })],
  ])('sends %s', async (_name, valid) => {
    const before = server.received.length;
    await client.createTask(valid as CreateTaskBody);
    expect(server.received).toHaveLength(before + 1);
    expect(JSON.parse(server.received.at(-1)!.body)).toEqual(valid);
  });
});

describe('VideoClient with allowPrivateUrls (ALLOW_PRIVATE_URLS=true: sandbox, demo, tests)', () => {
  let server: TestServer;
  let client: VideoClient;
  beforeAll(async () => {
    server = await startTestServer();
    client = new VideoClient(videoConfig(server.url, { allowPrivateUrls: true }));
  });
  afterAll(async () => {
    await client.close();
    await server.close();
  });

  it.each(PRIVATE_HOSTS)('sends media and callback_url at %s', async (_kind, host) => {
    const valid = body({
      content: [
        text,
        image(`http://${host}/a.png`),
        { type: 'video_url', video_url: { url: `http://${host}/a.mp4` } },
        { type: 'audio_url', audio_url: { url: `http://${host}/a.mp3` } },
      ],
      callback_url: `http://${host}:8787/callbacks/video`,
    });
    const before = server.received.length;
    await client.createTask(valid as CreateTaskBody);
    expect(server.received).toHaveLength(before + 1);
    expect(JSON.parse(server.received.at(-1)!.body)).toEqual(valid);
  });

  it('still refuses what is not an http(s) URL', async () => {
    const err = (await caught(
      client.createTask(body({ callback_url: 'ftp://127.0.0.1/x' }) as CreateTaskBody),
    )) as RequestValidationError;
    expect(err.issues).toEqual([{ field: 'callback_url', rule: 'must be a public http(s) URL' }]);
  });
});
