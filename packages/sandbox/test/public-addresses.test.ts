// Spec: media URLs and callback addresses are public. Over raw HTTP (no project client), the sandbox
// answers 400 naming the field for an address that is not public, by name, IP literal or any form the URL
// parser reads as one, unless it was started with `allowPrivateUrls` (what the tests, the demo and
// ALLOW_PRIVATE_URLS use).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../src/index.js';
import { createBody, Http, reviewHeaders, videoHeaders } from './support/sandbox-http.js';

const PRIVATE_HOSTS = [
  'localhost',
  'media.localhost',
  '127.0.0.1',
  '10.1.2.3',
  '172.16.0.9',
  '192.168.1.10',
  '169.254.169.254',
  '[::1]',
  '[fe80::1]',
  '[fd00::5]',
  '[::ffff:127.0.0.1]',
  '2130706433', // 127.0.0.1 written as one number
  '%31%32%37.0.0.1', // percent-encoded
  '127.0.0.1\\@media.example.com', // a backslash ends the host: 127.0.0.1
  '100.64.0.1', // carrier-grade NAT
  '203.0.113.7', // documentation
  '[fec0::1]', // site-local
  '[64:ff9b::10.0.0.1]', // NAT64 of a private IPv4
];
// Names are not resolved: a service name such as compose's `callbacks` is taken as written.
const PUBLIC_HOSTS = ['cdn.example.com', '8.8.8.8', '[2606:4700::1111]', 'callbacks:8787'];

const http = new Http();
let strict: Sandbox;
let lenient: Sandbox;
beforeAll(async () => {
  // Tasks that never end within the test: no callback is ever sent to these addresses.
  strict = await startSandbox({ reviewDurationMs: 600_000, videoDurationMs: 600_000 });
  lenient = await startSandbox({ reviewDurationMs: 600_000, videoDurationMs: 600_000, allowPrivateUrls: true });
});
afterAll(async () => {
  await http.close();
  await Promise.all([strict.close(), lenient.close()]);
});

const submit = (sb: Sandbox, body: unknown) =>
  http.call('POST', `${sb.reviewBaseUrl}/api/asset/upload/async`, { headers: reviewHeaders(sb), json: body });
const create = (sb: Sandbox, body: unknown) =>
  http.call('POST', `${sb.videoBaseUrl}/v1/task/create`, { headers: videoHeaders(sb), json: body });
const media = (type: 'image_url' | 'video_url' | 'audio_url', url: string) => ({
  model: 'm',
  content: [
    { type: 'text', text: 'go' },
    { type, [type]: { url } },
  ],
});

describe('the sandbox refuses private addresses by default', () => {
  it.each(PRIVATE_HOSTS)('review images and callback_url at %s: 400 naming the field', async (host) => {
    const images = await submit(strict, { images: ['https://cdn.example.com/ok.jpg', `http://${host}/a.jpg`] });
    expect(images.status).toBe(400);
    expect(images.json.error.message).toMatch(/images\[1\]: must be a public address \(.+\)/);
    const legacy = await submit(strict, { asset_url_list: [`http://${host}/a.jpg`] });
    expect(legacy.json.error.message).toContain('asset_url_list[0]: must be a public address');
    const callback = await submit(strict, {
      images: ['https://cdn.example.com/ok.jpg'],
      callback_url: `http://${host}:8787/cb`,
    });
    expect(callback.status).toBe(400);
    expect(callback.json.error.message).toMatch(/callback_url: must be a public address/);
    expect(strict.reviewTasks()).toHaveLength(0);
  });

  it.each(PRIVATE_HOSTS)('video create media and callback_url at %s: 400 naming the field', async (host) => {
    for (const [type, ext] of [
      ['image_url', 'jpg'],
      ['video_url', 'mp4'],
      ['audio_url', 'mp3'],
    ] as const) {
      const r = await create(strict, media(type, `http://${host}/a.${ext}`));
      expect(r.status).toBe(400);
      expect(r.json.error.message).toContain(`content[1].${type}.url: must be a public address`);
    }
    const callback = await create(strict, createBody(undefined, { callback_url: `http://${host}/cb` }));
    expect(callback.status).toBe(400);
    expect(callback.json.error.message).toContain('callback_url: must be a public address');
    expect(strict.videoTasks()).toHaveLength(0);
  });

  it.each(PUBLIC_HOSTS)('accepts %s (a public literal, or a name as written)', async (host) => {
    expect(
      (await submit(strict, { images: [`https://${host}/a.jpg`], callback_url: `http://${host}/cb` })).status,
    ).toBe(202);
    expect((await create(strict, media('image_url', `https://${host}/a.jpg`))).status).toBe(200);
  });
});

describe('allowPrivateUrls: true', () => {
  it.each(PRIVATE_HOSTS)('accepts media and callback addresses at %s', async (host) => {
    expect(
      (await submit(lenient, { images: [`http://${host}/a.jpg`], callback_url: `http://${host}:1/cb` })).status,
    ).toBe(202);
    const r = await create(lenient, {
      ...media('video_url', `http://${host}/a.mp4`),
      callback_url: `http://${host}:1/cb`,
    });
    expect(r.status, r.text).toBe(200);
  });
});
