// Gives a test file a sandbox (both services over HTTP, on free ports) and our two clients pointed at it,
// started before its tests, reset before each one and closed after them: next to withStack(), for tests
// that need the services but no Temporal worker.
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { startSandbox, type Sandbox, type SandboxOptions } from 'temporal-review-video-sandbox';
import { ReviewClient } from '../../src/services/review/client.js';
import { VideoClient } from '../../src/services/video/client.js';

export interface SandboxWithClients {
  sandbox: Sandbox;
  video: VideoClient;
  review: ReviewClient;
}

export function withSandbox(options: SandboxOptions & { timeoutMs?: number } = {}): SandboxWithClients {
  const { timeoutMs = 2_000, ...sandboxOptions } = options;
  // Filled in beforeAll: the test file reads it from inside its tests.
  const ctx = {} as SandboxWithClients;
  beforeAll(async () => {
    ctx.sandbox = await startSandbox(sandboxOptions);
    ctx.video = new VideoClient({
      baseUrl: ctx.sandbox.videoBaseUrl,
      apiKey: ctx.sandbox.apiKey,
      cancelMethod: 'POST',
      cancelPath: '/v1/task/cancel/{id}',
      timeoutMs,
    });
    ctx.review = new ReviewClient({
      baseUrl: ctx.sandbox.reviewBaseUrl,
      accessToken: ctx.sandbox.accessToken,
      timeoutMs,
    });
  });
  beforeEach(() => ctx.sandbox.reset());
  afterAll(async () => {
    await Promise.all([ctx.video?.close(), ctx.review?.close()]);
    await ctx.sandbox?.close();
  });
  return ctx;
}
