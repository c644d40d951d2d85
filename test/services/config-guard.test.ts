// The two clients cannot be built from each other's config: the constructor types refuse it (checked by
// `tsc --noEmit`, which covers this file) and a guard refuses it at run time for untyped callers.
import { describe, expect, it } from 'vitest';
import type { ReviewServiceConfig, VideoServiceConfig } from '../../src/config/types.js';
import { ReviewClient } from '../../src/services/review/client.js';
import { VideoClient } from '../../src/services/video/client.js';
import { REVIEW_TOKEN, reviewConfig, VIDEO_KEY, videoConfig } from '../support/service-configs.js';

const video = videoConfig('http://127.0.0.1:9');
const review = reviewConfig('http://127.0.0.1:9');
const both = { ...video, ...review } as VideoServiceConfig & ReviewServiceConfig;

function thrown(build: () => unknown): Error {
  try {
    build();
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected the constructor to throw');
}

describe('config separation', () => {
  it('a VideoClient cannot be built from a review config', () => {
    // @ts-expect-error ReviewServiceConfig has no apiKey/cancelPath and carries accessToken
    const err = thrown(() => new VideoClient(review));
    expect(err).toBeInstanceOf(TypeError);
    expect(err.message).toContain('config carries accessToken');
  });

  it('a ReviewClient cannot be built from a video config', () => {
    // @ts-expect-error VideoServiceConfig has no accessToken and carries apiKey
    const err = thrown(() => new ReviewClient(video));
    expect(err.message).toContain('config carries apiKey');
  });

  it('a config holding both secrets is refused by type and at run time', () => {
    // @ts-expect-error accessToken?: never
    expect(() => new VideoClient(both)).toThrow(/config carries accessToken/);
    // @ts-expect-error apiKey?: never
    expect(() => new ReviewClient(both)).toThrow(/config carries apiKey/);
  });

  it('an untyped config with the other secret is refused at run time, without printing either secret', () => {
    const untyped: unknown = { ...video, accessToken: REVIEW_TOKEN };
    const err = thrown(() => new VideoClient(untyped as VideoServiceConfig));
    for (const text of [err.message, String(err.stack)]) {
      expect(text).not.toContain(VIDEO_KEY);
      expect(text).not.toContain(REVIEW_TOKEN);
    }
  });

  it('refuses a missing secret, a secret with control characters and a non-http base URL', () => {
    expect(() => new VideoClient({ ...video, apiKey: '' })).toThrow(
      'VideoClient: config.apiKey must be a non-empty string',
    );
    expect(() => new ReviewClient({ ...review, accessToken: 'abc\r\nX-Evil: 1' })).toThrow(
      'config.accessToken contains control characters',
    );
    expect(() => new ReviewClient({ ...review, baseUrl: 'ftp://review.example.com' })).toThrow(
      'config.baseUrl must be an http(s) URL',
    );
    expect(() => new VideoClient({ ...video, cancelPath: '/v1/task/cancel' })).toThrow(
      'cancelPath must start with / and contain {id}',
    );
  });

  it('does not expose the secret through the client object', async () => {
    const client = new VideoClient(video);
    expect(JSON.stringify(client)).not.toContain(VIDEO_KEY);
    expect(Object.values(client).join(' ')).not.toContain(VIDEO_KEY);
    await client.close();
  });
});
