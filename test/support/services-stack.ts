// The services part of every test stack and tool, outside vitest, so that the tests (test/support/stack.ts),
// the golden recording (test/golden/record/stack.ts) and the benchmarks and the soak (bench/) assemble it
// the same way: the sandbox (both services over HTTP), the two service clients, the callback receiver
// signalling through the given client, and the variables that point a worker process at them, all on free
// ports of loopback.
import { randomBytes } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { CallbackHandlerOptions } from '../../src/callbacks/handler.js';
import { startCallbackServer, type CallbackServer } from '../../src/callbacks/server.js';
import { startSandbox, type Sandbox, type SandboxOptions } from 'temporal-review-video-sandbox';
import { ReviewClient } from '../../src/services/review/client.js';
import { VideoClient } from '../../src/services/video/client.js';

export type CallbackOutcome = Parameters<NonNullable<CallbackHandlerOptions['onOutcome']>>[0];

/** The sandbox and our two clients pointed at it. */
export interface Services {
  sandbox: Sandbox;
  clients: { video: VideoClient; review: ReviewClient };
  /** Each client's request timeout. */
  timeoutMs: number;
  /** Closes the clients and the sandbox. */
  close(): Promise<void>;
}

/** The services and the callback receiver in this process. */
export interface ServicesStack extends Services {
  receiver: CallbackServer;
  /** The receiver's HMAC key of the callback URLs (a secret no history may hold). */
  secret: string;
  /** Closes the receiver, the clients and the sandbox. */
  close(): Promise<void>;
}

export interface ServicesOptions {
  /** Passed to the sandbox; private (loopback) URLs are allowed unless it says otherwise. */
  sandbox?: SandboxOptions;
  /** The clients' request timeout (default 2 s). */
  timeoutMs?: number;
}

export interface ServicesStackOptions extends ServicesOptions {
  /** Told what the receiver did with each callback. */
  onOutcome?: CallbackHandlerOptions['onOutcome'];
}

/**
 * The services without a receiver in this process: for a tool whose receiver is a child process (the soak
 * restarts it) or whose jobs poll.
 */
export async function startServices(options: ServicesOptions = {}): Promise<Services> {
  // Receivers listen on loopback: the sandbox and the clients must accept private addresses.
  const sandbox = await startSandbox({ allowPrivateUrls: true, ...options.sandbox });
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
    clients,
    timeoutMs,
    async close() {
      await Promise.allSettled([clients.video.close(), clients.review.close()]);
      await sandbox.close();
    },
  };
}

/** The services and a callback receiver (a fresh random key) that signals through `client`. */
export async function startServicesStack(client: Client, options: ServicesStackOptions = {}): Promise<ServicesStack> {
  const services = await startServices(options);
  const secret = `cb-secret-${randomBytes(16).toString('hex')}`;
  const receiver = await startCallbackServer({
    client,
    secret,
    host: '127.0.0.1',
    port: 0,
    ...(options.onOutcome ? { onOutcome: options.onOutcome } : {}),
  }).catch(async (err: unknown) => {
    await services.close();
    throw err;
  });
  return {
    ...services,
    receiver,
    secret,
    async close() {
      await receiver.close();
      await services.close();
    },
  };
}

/** The variables of a worker process (src/worker.ts) that talks to this sandbox (loopback addresses allowed). */
export function sandboxServiceEnv(sandbox: {
  videoBaseUrl: string;
  apiKey: string;
  reviewBaseUrl: string;
  accessToken: string;
}): Record<string, string> {
  return {
    VIDEO_API_BASE_URL: sandbox.videoBaseUrl,
    VIDEO_API_KEY: sandbox.apiKey,
    REVIEW_API_BASE_URL: sandbox.reviewBaseUrl,
    REVIEW_ACCESS_TOKEN: sandbox.accessToken,
    ALLOW_PRIVATE_URLS: 'true',
  };
}

/** The variables of a worker process whose jobs' callbacks go to this stack's receiver. */
export function receiverEnv(stack: Pick<ServicesStack, 'receiver' | 'secret'>): Record<string, string> {
  return { CALLBACK_PUBLIC_URL: stack.receiver.url, CALLBACK_SECRET: stack.secret };
}
