// The services part of every test stack, outside vitest so that the golden recording
// (test/golden/record/stack.ts) assembles it the same way as the tests (test/support/stack.ts): the
// sandbox (both services over HTTP), the callback receiver signalling through the given client, and the
// two service clients, all on free ports of loopback.
import { randomBytes } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { CallbackHandlerOptions } from '../../src/callbacks/handler.js';
import { startCallbackServer, type CallbackServer } from '../../src/callbacks/server.js';
import { startSandbox, type Sandbox, type SandboxOptions } from 'temporal-review-video-sandbox';
import { ReviewClient } from '../../src/services/review/client.js';
import { VideoClient } from '../../src/services/video/client.js';

export type CallbackOutcome = Parameters<NonNullable<CallbackHandlerOptions['onOutcome']>>[0];

export interface ServicesStack {
  sandbox: Sandbox;
  receiver: CallbackServer;
  /** The receiver's HMAC key of the callback URLs (a secret no history may hold). */
  secret: string;
  clients: { video: VideoClient; review: ReviewClient };
  /** Each client's request timeout. */
  timeoutMs: number;
  /** Closes the receiver, the clients and the sandbox. */
  close(): Promise<void>;
}

export interface ServicesStackOptions {
  sandbox?: SandboxOptions;
  /** The clients' request timeout (default 2 s). */
  timeoutMs?: number;
  /** Told what the receiver did with each callback. */
  onOutcome?: CallbackHandlerOptions['onOutcome'];
}

export async function startServicesStack(client: Client, options: ServicesStackOptions = {}): Promise<ServicesStack> {
  // The receiver listens on loopback: the sandbox and the clients must accept private addresses.
  const sandbox = await startSandbox({ allowPrivateUrls: true, ...options.sandbox });
  const secret = `cb-secret-${randomBytes(16).toString('hex')}`;
  const receiver = await startCallbackServer({
    client,
    secret,
    host: '127.0.0.1',
    port: 0,
    ...(options.onOutcome ? { onOutcome: options.onOutcome } : {}),
  });
  const timeoutMs = options.timeoutMs ?? 2_000;
  const clients = {
    video: new VideoClient({
      baseUrl: sandbox.videoBaseUrl,
      apiKey: sandbox.apiKey,
      cancelMethod: 'POST',
      cancelPath: '/v1/task/cancel/{id}',
      timeoutMs,
      allowPrivateUrls: true,
    }),
    review: new ReviewClient({
      baseUrl: sandbox.reviewBaseUrl,
      accessToken: sandbox.accessToken,
      timeoutMs,
      allowPrivateUrls: true,
    }),
  };
  return {
    sandbox,
    receiver,
    secret,
    clients,
    timeoutMs,
    async close() {
      await receiver.close();
      await Promise.allSettled([clients.video.close(), clients.review.close()]);
      await sandbox.close();
    },
  };
}
