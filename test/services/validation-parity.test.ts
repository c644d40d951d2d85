// One table per body of the spec (video task create, review submit): every row is sent to the client's
// validation and, over HTTP, to the sandbox, and both must give the spec's answer (accepted or refused).
// The spec is the judge, not either side: a faithful emulator refuses what the real service refuses, and
// the client refuses before sending what the service would refuse. The decisions where the spec is silent
// are docs/rules.md's ("Decisions where the spec is silent"), one per row that needs one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateReviewSubmitBody } from '../../src/model/review/schemas.js';
import { validateCreateTaskBody } from '../../src/model/video/schemas.js';
import { startSandbox, type Sandbox } from 'temporal-review-video-sandbox';
import { Http, reviewHeaders, videoHeaders } from '../../packages/sandbox/test/support/sandbox-http.js';

let sb: Sandbox;
const http = new Http();
/** The id of an asset the sandbox's review approved, so that an Asset:// row is judged on its form. */
let assetId: string;

beforeAll(async () => {
  // Accepted rows make tasks that never end within the test: no callback is ever sent to the public
  // addresses the rows carry. Private addresses are refused, as the spec wants (no allowPrivateUrls).
  sb = await startSandbox({ reviewDurationMs: 600_000, videoDurationMs: 600_000 });
  const source = 'https://cdn.example.com/parity/approved.jpg';
  sb.setReviewTaskOutcome({ url: source }, 'completed', 50);
  const review = await http.call('POST', `${sb.reviewBaseUrl}/api/asset/upload/sync`, {
    headers: reviewHeaders(sb),
    json: { images: [source] },
  });
  const assetUrl = String(review.json.result.items[0].asset_url);
  expect(assetUrl).toMatch(/^Asset:\/\//);
  assetId = assetUrl.slice('Asset://'.length);
});
afterAll(async () => {
  await http.close();
  await sb.close();
});

type Row = [name: string, body: () => unknown];

const text = { type: 'text', text: 'a walk on the beach' };
const image = (url: string, role?: string) => ({ type: 'image_url', image_url: { url }, ...(role ? { role } : {}) });
const create = (extra: Record<string, unknown> = {}, content: unknown[] = [text]) => ({
  model: 'video-model-1',
  content,
  ...extra,
});
const jpg = 'https://cdn.example.com/parity/a.jpg';
const hook = 'https://hooks.example.com/callbacks/x';

const createAccepted: Row[] = [
  ['a model and a text item', () => create()],
  [
    'every optional field, each of its type',
    () =>
      create({
        generate_audio: true,
        ratio: '16:9',
        duration: 5,
        watermark: false,
        callback_url: hook,
        resolution: '720p',
        seed: 42,
      }),
  ],
  ['a ratio with fractions, and a keyword ratio', () => create({ ratio: '2.39:1', resolution: '1080P' })],
  [
    'a keyword ratio, a 4k resolution, a fractional duration',
    () => create({ ratio: 'adaptive', resolution: '4k', duration: 2.5 }),
  ],
  [
    'a public image, video and audio URL',
    () =>
      create({}, [
        text,
        image(jpg, 'reference_image'),
        { type: 'video_url', video_url: { url: 'https://cdn.example.com/v.mp4' }, role: 'reference_video' },
        { type: 'audio_url', audio_url: { url: 'https://cdn.example.com/a.mp3' }, role: 'reference_audio' },
      ]),
  ],
  [
    'a role the spec does not list, on any item type',
    () => create({}, [{ ...text, role: 'style' }, image(jpg, 'style')]),
  ],
  ['an approved Asset:// address', () => create({}, [text, image(`Asset://${assetId}`)])],
  // RFC 3986 3.1: a scheme is case-insensitive (the WHATWG parser reads both as `asset:`).
  ['the same address with a lower-case scheme', () => create({}, [text, image(`asset://${assetId}`)])],
  ['the same address with an upper-case scheme', () => create({}, [text, image(`ASSET://${assetId}`)])],
  ['a first frame alone', () => create({}, [text, image(jpg, 'first_frame')])],
  [
    'a first and a last frame with a text item',
    () => create({}, [text, image(jpg, 'first_frame'), image('https://cdn.example.com/b.png', 'last_frame')]),
  ],
  ['a field the spec does not list', () => create({ extra_option: { any: 1 } })],
];

const createRefused: Row[] = [
  ['no model', () => ({ content: [text] })],
  ['an empty model', () => create({ model: '' })],
  ['a blank model', () => create({ model: '   ' })],
  ['a model that is not a string', () => create({ model: 5 })],
  ['no content', () => ({ model: 'm' })],
  ['an empty content', () => create({}, [])],
  ['a content that is not an array', () => create({ content: 'hi' })],
  ['an item that is not an object', () => create({}, ['hi'])],
  ['an unknown item type', () => create({}, [{ type: 'pdf_url' }])],
  ['a text item without text', () => create({}, [{ type: 'text' }])],
  ['a blank prompt', () => create({}, [{ type: 'text', text: '  ' }])],
  ['an image item with a flat url', () => create({}, [text, { type: 'image_url', url: jpg }])],
  ['an image item without url', () => create({}, [text, { type: 'image_url', image_url: {} }])],
  ['an empty media URL', () => create({}, [text, image('')])],
  ['an ftp media URL', () => create({}, [text, image('ftp://cdn.example.com/a.jpg')])],
  ['a data: image', () => create({}, [text, image('data:image/png;base64,iVBORw0KGgo=')])],
  ['a bare base64 image', () => create({}, [text, image('iVBORw0KGgo'.repeat(10))])],
  ['a loopback media URL', () => create({}, [text, image('http://127.0.0.1/a.jpg')])],
  ['a media URL with a space', () => create({}, [text, image('https://cdn.example.com/a b.jpg')])],
  ['a media URL with a leading space', () => create({}, [text, image(` ${jpg}`)])],
  ['an Asset:// address without an id', () => create({}, [text, image('Asset://')])],
  ['an Asset:// address with a space', () => create({}, [text, image(`Asset:// ${assetId}`)])],
  ['generate_audio not a boolean', () => create({ generate_audio: 'yes' })],
  ['watermark not a boolean', () => create({ watermark: 1 })],
  ['a ratio 16/9', () => create({ ratio: '16/9' })],
  ['a ratio 0:9', () => create({ ratio: '0:9' })],
  ['an empty ratio', () => create({ ratio: '' })],
  ['a ratio with a space', () => create({ ratio: '16: 9' })],
  ['a zero duration', () => create({ duration: 0 })],
  ['a negative duration', () => create({ duration: -1 })],
  ['a duration as a string', () => create({ duration: '5' })],
  ['an ftp callback_url', () => create({ callback_url: 'ftp://hooks.example.com/x' })],
  ['a private callback_url', () => create({ callback_url: 'http://10.0.0.1/cb' })],
  ['a callback_url that is no URL', () => create({ callback_url: 'not a url' })],
  ['a callback_url with a space', () => create({ callback_url: 'https://hooks.example.com/a b' })],
  ['an empty resolution', () => create({ resolution: '' })],
  ['a blank resolution', () => create({ resolution: '  ' })],
  ['a resolution as a number', () => create({ resolution: 720 })],
  ['a fractional seed', () => create({ seed: 1.5 })],
  ['a seed as a string', () => create({ seed: '1' })],
  ['a last frame without a first frame', () => create({}, [text, image(jpg, 'last_frame')])],
  [
    'a last frame on a video item',
    () =>
      create({}, [
        text,
        image(jpg, 'first_frame'),
        { type: 'video_url', video_url: { url: 'https://cdn.example.com/v.mp4' }, role: 'last_frame' },
      ]),
  ],
  [
    'two last frames',
    () => create({}, [text, image(jpg, 'first_frame'), image(jpg, 'last_frame'), image(jpg, 'last_frame')]),
  ],
  [
    'a first and a last frame without a text item',
    () => create({}, [image(jpg, 'first_frame'), image(jpg, 'last_frame')]),
  ],
  ['a body that is an array', () => [create()]],
];

const urls = (n: number, ext = 'jpg') =>
  Array.from({ length: n }, (_, i) => `https://cdn.example.com/parity/${i}.${ext}`);

const reviewAccepted: Row[] = [
  ['one image', () => ({ images: [jpg] })],
  ['50 images', () => ({ images: urls(50) })],
  ['videos with asset_type Video', () => ({ images: urls(2, 'mp4'), asset_type: 'Video' })],
  ['audio with asset_type Audio', () => ({ images: urls(1, 'mp3'), asset_type: 'Audio' })],
  ['an upper-case extension, a query string', () => ({ images: ['https://cdn.example.com/A.JPG?v=2'] })],
  ['the legacy asset_url_list alone', () => ({ asset_url_list: [jpg] })],
  ['both lists (asset_url_list is used)', () => ({ images: [jpg], asset_url_list: urls(2) })],
  ['a public callback_url', () => ({ images: [jpg], callback_url: hook })],
  ['group_id with group_source real_person', () => ({ images: [jpg], group_id: 'g1', group_source: 'real_person' })],
  ['group_id with an empty group_source', () => ({ images: [jpg], group_id: 'g1', group_source: '' })],
  ['group_id alone', () => ({ images: [jpg], group_id: 'g1' })],
  ['any group_source without group_id', () => ({ images: [jpg], group_source: 'studio' })],
  ['a field the spec does not list', () => ({ images: [jpg], note: 'x' })],
];

const reviewRefused: Row[] = [
  ['no images', () => ({ asset_type: 'Image' })],
  ['an empty images', () => ({ images: [] })],
  ['51 images', () => ({ images: urls(51) })],
  ['images that is not an array', () => ({ images: jpg })],
  ['a URL that is not a string', () => ({ images: [1] })],
  ['an ftp URL', () => ({ images: ['ftp://cdn.example.com/a.jpg'] })],
  ['an Asset:// address', () => ({ images: [`Asset://${assetId}`] })],
  ['a private URL', () => ({ images: ['http://192.168.1.5/a.jpg'] })],
  ['a URL with a space', () => ({ images: ['https://cdn.example.com/a b.jpg'] })],
  ['a URL with a leading space', () => ({ images: [` ${jpg}`] })],
  ['a URL without an extension', () => ({ images: ['https://cdn.example.com/a'] })],
  ['an unsupported extension', () => ({ images: ['https://cdn.example.com/a.txt'] })],
  ['two types in one batch', () => ({ images: [jpg, 'https://cdn.example.com/b.mp4'], asset_type: 'Image' })],
  ['videos without asset_type (Image by default)', () => ({ images: urls(1, 'mp4') })],
  ['asset_type not one of Image, Video, Audio', () => ({ images: [jpg], asset_type: 'image' })],
  ['asset_type Video for images', () => ({ images: [jpg], asset_type: 'Video' })],
  [
    'a bad asset_url_list beside good images (asset_url_list is used)',
    () => ({ images: [jpg], asset_url_list: ['ftp://x/a.jpg'] }),
  ],
  ['images of the wrong type beside a good asset_url_list', () => ({ images: [1], asset_url_list: [jpg] })],
  ['a private callback_url', () => ({ images: [jpg], callback_url: 'http://127.0.0.1:9/cb' })],
  ['a callback_url that is no URL', () => ({ images: [jpg], callback_url: 'hooks' })],
  // An id names a group: the spec admits an empty value only for group_source ("empty or real_person").
  ['an empty group_id', () => ({ images: [jpg], group_id: '' })],
  ['a group_id that is not a string', () => ({ images: [jpg], group_id: 5 })],
  [
    'group_source neither empty nor real_person with group_id',
    () => ({ images: [jpg], group_id: 'g1', group_source: 'celebrity' }),
  ],
  ['a group_source that is not a string', () => ({ images: [jpg], group_source: 5 })],
  ['a body that is an array', () => [{ images: [jpg] }]],
];

/** Accepted or refused, with the reason when refused (the test's message, if the two disagree). */
type Verdict = { accepted: boolean; why?: string };

async function sandboxCreate(body: unknown): Promise<Verdict> {
  const res = await http.call('POST', `${sb.videoBaseUrl}/v1/task/create`, { headers: videoHeaders(sb), json: body });
  if (res.status !== 200 && res.status !== 400) throw new Error(`create answered ${res.status}: ${res.text}`);
  return res.status === 200 ? { accepted: true } : { accepted: false, why: res.json?.error?.message };
}

async function sandboxSubmit(body: unknown): Promise<Verdict> {
  const res = await http.call('POST', `${sb.reviewBaseUrl}/api/asset/upload/async`, {
    headers: reviewHeaders(sb),
    json: body,
  });
  if (res.status !== 202 && res.status !== 400) throw new Error(`submit answered ${res.status}: ${res.text}`);
  return res.status === 202 ? { accepted: true } : { accepted: false, why: res.json?.error?.message };
}

function clientVerdict(r: { ok: true } | { ok: false; issues: Array<{ field: string; rule: string }> }): Verdict {
  return r.ok ? { accepted: true } : { accepted: false, why: r.issues.map((i) => `${i.field}: ${i.rule}`).join('; ') };
}

describe('video task create: the client and the sandbox give the spec answer', () => {
  const rows = [
    ...createAccepted.map(([name, body]) => [name, body, true] as const),
    ...createRefused.map(([name, body]) => [name, body, false] as const),
  ];
  it.each(rows)('%s', async (_name, body, accepted) => {
    const client = clientVerdict(validateCreateTaskBody(body()));
    const sandbox = await sandboxCreate(body());
    expect({ client: client.accepted, sandbox: sandbox.accepted }, JSON.stringify({ client, sandbox })).toEqual({
      client: accepted,
      sandbox: accepted,
    });
  });
});

describe('review submit: the client and the sandbox give the spec answer', () => {
  const rows = [
    ...reviewAccepted.map(([name, body]) => [name, body, true] as const),
    ...reviewRefused.map(([name, body]) => [name, body, false] as const),
  ];
  it.each(rows)('%s', async (_name, body, accepted) => {
    const client = clientVerdict(validateReviewSubmitBody(body()));
    const sandbox = await sandboxSubmit(body());
    expect({ client: client.accepted, sandbox: sandbox.accepted }, JSON.stringify({ client, sandbox })).toEqual({
      client: accepted,
      sandbox: accepted,
    });
  });
});
