// The sandbox's video files: real bytes of the configured size at signed addresses that expire (after
// videoUrlTtlMs, or at expireVideoUrls()), stable across records until then; faults: a reset mid-stream,
// a slow body, a 403 as if expired. Also VIDEO_STORE parsing.
import { createHash } from 'node:crypto';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { videoBlock } from '../../packages/sandbox/src/video-file.js';
import { parseVideoStore } from '../../src/store/config.js';
import { ConfigError } from '../../src/config/env.js';
import { withSandbox } from '../support/sandbox.js';

const BYTES = 200_000;
// Addresses that outlive any test (the default hour): what holds until expiry is not raced by a slow machine.
const ctx = withSandbox({ videoFileBytes: BYTES, videoDurationMs: 40 });
// Addresses of 1.5 s, for the expiry in time alone.
const shortLived = withSandbox({ videoFileBytes: BYTES, videoDurationMs: 40, videoUrlTtlMs: 1_500 });

async function succeededTask(on = ctx): Promise<{ id: string; url: string }> {
  const { id } = await on.video.createTask({ model: 'm', content: [{ type: 'text', text: 'a file' }] });
  for (;;) {
    const task = await on.video.getTask(id);
    if (task.status === 'succeeded') return { id, url: task.videoUrl! };
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function download(url: string) {
  const res = await request(url);
  const hash = createHash('sha256');
  let bytes = 0;
  try {
    for await (const chunk of res.body) {
      hash.update(chunk as Buffer);
      bytes += (chunk as Buffer).length;
    }
    return { status: res.statusCode, bytes, sha256: hash.digest('hex'), error: undefined };
  } catch (error) {
    return { status: res.statusCode, bytes, sha256: undefined, error };
  }
}

const expectedSha256 = (id: string) => {
  const block = videoBlock(id);
  const hash = createHash('sha256');
  for (let sent = 0; sent < BYTES; sent += block.length)
    hash.update(block.subarray(0, Math.min(block.length, BYTES - sent)));
  return hash.digest('hex');
};

describe('sandbox video files', () => {
  it('serves the configured number of deterministic bytes with a content-length, at a signed address', async () => {
    const { id, url } = await succeededTask();
    expect(url).toMatch(new RegExp(`/videos/[^/]+/${id}\\.mp4$`));
    const res = await request(url);
    expect(res.headers['content-length']).toBe(String(BYTES));
    expect(res.headers['content-type']).toBe('video/mp4');
    await res.body.dump();
    expect(await download(url)).toMatchObject({ status: 200, bytes: BYTES, sha256: expectedSha256(id) });
    // The same address in every record until it expires; a forged or unsigned one is refused.
    expect((await ctx.video.getTask(id)).videoUrl).toBe(url);
    expect((await download(url.replace(/-[0-9a-f]{64}\//, `-${'0'.repeat(64)}/`))).status).toBe(403);
    expect((await download(`${ctx.sandbox.videoBaseUrl}/videos/${id}.mp4`)).status).toBe(403);
  });

  it('expires addresses after videoUrlTtlMs and at expireVideoUrls(); a query then gives a fresh one', async () => {
    const { id, url } = await succeededTask();
    ctx.sandbox.expireVideoUrls();
    expect((await download(url)).status).toBe(403);
    const fresh = (await ctx.video.getTask(id)).videoUrl!;
    expect(fresh).not.toBe(url);
    expect((await download(fresh)).status).toBe(200);

    const short = await succeededTask(shortLived);
    await new Promise((r) => setTimeout(r, 1_600));
    expect((await download(short.url)).status).toBe(403);
    const renewed = (await shortLived.video.getTask(short.id)).videoUrl!;
    expect(renewed).not.toBe(short.url);
    expect((await download(renewed)).status).toBe(200);
  });

  it('injects a reset mid-stream, a slow body and an expired answer, each for the next download', async () => {
    const { id, url } = await succeededTask();
    ctx.sandbox.setVideoFileFault({ mode: 'reset', afterBytes: 70_000 });
    const reset = await download(url);
    expect(reset.error).toBeDefined();
    expect(reset.bytes).toBeLessThan(BYTES);
    ctx.sandbox.setVideoFileFault({ mode: 'slow', bytesPerSecond: 400_000 });
    const started = Date.now();
    expect(await download(url)).toMatchObject({ status: 200, bytes: BYTES, sha256: expectedSha256(id) });
    expect(Date.now() - started).toBeGreaterThanOrEqual(400);
    ctx.sandbox.setVideoFileFault({ mode: 'expired' });
    expect((await download(url)).status).toBe(403);
    expect((await download(url)).status).toBe(200);
  });
});

describe('VIDEO_STORE', () => {
  it('reads file:///dir and s3://bucket/prefix, and refuses anything else naming the variable', () => {
    expect(parseVideoStore('file:///var/videos')).toEqual({ kind: 'file', dir: '/var/videos' });
    expect(parseVideoStore('s3://bucket/a/b/')).toEqual({ kind: 's3', bucket: 'bucket', prefix: 'a/b' });
    expect(parseVideoStore('s3://bucket')).toEqual({ kind: 's3', bucket: 'bucket', prefix: '' });
    for (const bad of ['/var/videos', 'http://x/y', 's3://key:secret@bucket/p', 'file://host/dir']) {
      expect(() => parseVideoStore(bad)).toThrow(ConfigError);
      expect(() => parseVideoStore(bad)).toThrow(/VIDEO_STORE/);
    }
    expect(() => parseVideoStore('s3://key:secret@bucket/p')).not.toThrow(/secret/);
  });
});
