// Every rule of the create body (spec: create request body, content item, material rules) is checked
// before sending: each case shows the field and the rule, and a real local server proves that no request
// (not even a connection) left the process.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RequestValidationError } from '../../src/services/errors.js';
import { VideoClient } from '../../src/services/video/client.js';
import type { CreateTaskBody } from '../../src/services/video/schemas.js';
import { caught, videoConfig } from './support/configs.js';
import { startTestServer, type TestServer } from './support/test-server.js';

const text = { type: 'text', text: 'a cat on a skateboard' };
const image = (url: string, role?: string) => ({ type: 'image_url', image_url: { url }, ...(role ? { role } : {}) });
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
  ['item type is required', withItem({ image_url: { url: 'https://cdn.example.com/a.png' } }), 'content[1].type', 'is required (one of text, image_url, video_url, audio_url)'],
  ['item type is known', withItem({ type: 'file_url', file_url: { url: 'https://cdn.example.com/a.pdf' } }), 'content[1].type', 'must be one of text, image_url, video_url, audio_url'],
  ['text item needs text', body({ content: [{ type: 'text' }] }), 'content[0].text', 'is required (the prompt)'],
  ['text is non-empty', body({ content: [{ type: 'text', text: '' }] }), 'content[0].text', 'must be a non-empty prompt'],
  ['image_url item needs image_url.url', withItem({ type: 'image_url', image_url: {} }), 'content[1].image_url.url', 'is required (an http(s) URL or an Asset:// address)'],
  ['missing image_url object is reported at its url', withItem({ type: 'image_url' }), 'content[1].image_url.url', 'is required'],
  ['video_url item needs video_url.url', withItem({ type: 'video_url' }), 'content[1].video_url.url', 'is required'],
  ['audio_url item needs a non-empty audio_url.url', withItem({ type: 'audio_url', audio_url: { url: '' } }), 'content[1].audio_url.url', 'is required'],
  ['image_url is an object', withItem({ type: 'image_url', image_url: 'https://cdn.example.com/a.png' }), 'content[1].image_url', 'must be an object { url }'],
  ['role is a known role', withItem(image('https://cdn.example.com/a.png', 'style')), 'content[1].role', 'must be one of reference_image, first_frame, last_frame, reference_video, reference_audio'],
  ['first_frame only on image_url', withItem({ type: 'video_url', video_url: { url: 'https://cdn.example.com/a.mp4' }, role: 'first_frame' }), 'content[1].role', 'role first_frame is only allowed on image_url items'],
  ['reference_video only on video_url', withItem(image('https://cdn.example.com/a.png', 'reference_video')), 'content[1].role', 'role reference_video is only allowed on video_url items'],
  ['reference_audio only on audio_url', withItem({ type: 'video_url', video_url: { url: 'https://cdn.example.com/a.mp4' }, role: 'reference_audio' }), 'content[1].role', 'role reference_audio is only allowed on audio_url items'],
  ['no role on text items', body({ content: [{ ...text, role: 'reference_image' }] }), 'content[0].role', 'role reference_image is only allowed on image_url items'],
  ['data: URLs are refused', withItem(image(`data:image/png;base64,${BASE64_PNG}`)), 'content[1].image_url.url', 'base64 media is not supported'],
  ['bare base64 is refused', withItem(image(BASE64_PNG)), 'content[1].image_url.url', 'base64 media is not supported'],
  ['media URL is http(s) or Asset://', withItem({ type: 'audio_url', audio_url: { url: 'ftp://cdn.example.com/a.mp3' } }), 'content[1].audio_url.url', 'must be a public http(s) URL or an Asset:// address'],
  ['relative media URL is refused', withItem(image('/images/a.png')), 'content[1].image_url.url', 'must be a public http(s) URL or an Asset:// address'],
  ['first_frame needs last_frame', body({ content: [text, image('https://cdn.example.com/a.png', 'first_frame')] }), 'content', 'a first/last-frame request needs an image_url item with role last_frame'],
  ['last_frame needs first_frame', body({ content: [text, image('https://cdn.example.com/b.png', 'last_frame')] }), 'content', 'a first/last-frame request needs an image_url item with role first_frame'],
  ['first/last frame needs a text item', body({ content: [image('https://cdn.example.com/a.png', 'first_frame'), image('https://cdn.example.com/b.png', 'last_frame')] }), 'content', 'a first/last-frame request needs a text item (the prompt)'],
  ['ratio is <w>:<h>', body({ ratio: '16/9' }), 'ratio', 'must have the form <w>:<h> with positive integers'],
  ['ratio parts are positive', body({ ratio: '0:9' }), 'ratio', 'must have the form <w>:<h> with positive integers'],
  ['ratio has no keyword form', body({ ratio: 'adaptive' }), 'ratio', 'must have the form <w>:<h> with positive integers'],
  ['resolution is <number>p', body({ resolution: '1080' }), 'resolution', 'must have the form <number>p'],
  ['duration is positive', body({ duration: 0 }), 'duration', 'must be a positive number of seconds'],
  ['duration is a number', body({ duration: '5' }), 'duration', 'must be a positive number of seconds'],
  ['seed is an integer', body({ seed: 1.5 }), 'seed', 'must be an integer'],
  ['callback_url is http(s)', body({ callback_url: 'ftp://hooks.example.com/x' }), 'callback_url', 'must be an http(s) URL'],
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
      client.createTask(body({ model: '', ratio: 'wide', seed: 0.5, content: [text, image('data:image/png;base64,AAAA')] }) as CreateTaskBody),
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
});
