// Client configs for the tests. The secrets are recognisable so that a test can search every error for them.
import type { ReviewServiceConfig, VideoServiceConfig } from '../../src/config/types.js';

export const VIDEO_KEY = 'sk-VIDEO-SECRET-3f9a1c77d2';
export const REVIEW_TOKEN = 'tok-REVIEW-SECRET-8b2e40aa19';

export function videoConfig(baseUrl: string, overrides: Partial<VideoServiceConfig> = {}): VideoServiceConfig {
  return {
    baseUrl,
    apiKey: VIDEO_KEY,
    cancelMethod: 'POST',
    cancelPath: '/v1/task/cancel/{id}',
    timeoutMs: 2_000,
    ...overrides,
  };
}

export function reviewConfig(baseUrl: string, overrides: Partial<ReviewServiceConfig> = {}): ReviewServiceConfig {
  return { baseUrl, accessToken: REVIEW_TOKEN, timeoutMs: 2_000, ...overrides };
}

/** Captures what an async call threw (or fails the test if it did not throw). */
export async function caught(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error('expected the call to throw');
}
