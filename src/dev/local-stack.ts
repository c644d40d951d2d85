// The whole local stack on embedded defaults, assembled one way for `npm run dev` and `npm run demo`: a
// Temporal dev server (Web UI, our search attributes), the sandbox of both services, the callback
// receiver, the codec server the Web UI decodes through, and a worker with our plugin. `stop()` closes
// every part it started, in reverse order; a start that fails half-way closes what it had started.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { Worker } from '@temporalio/worker';
import { startCallbackServer, type CallbackServer } from '../callbacks/server.js';
import { dataConverterFromEnv } from '../codec/data-converter.js';
import { startCodecServer, type CodecServer } from '../codec/server.js';
import { DEFAULT_TASK_QUEUE } from '../config/temporal.js';
import { type VideoStoreConfig } from '../config/types.js';
import { ReviewVideoPlugin } from '../plugin.js';
import { startSandbox, type Sandbox, type SandboxOptions } from 'temporal-review-video-sandbox';
import { loadVideoStoreConfig } from '../store/config.js';
import { freePort, startDevServer, type DevServer } from './temporal-dev-server.js';

export interface LocalStackOptions {
  /** The Temporal frontend's port (default: a free one). */
  temporalPort?: number | undefined;
  /** The Web UI's port (default: a free one). */
  uiPort?: number | undefined;
  /** The sandbox's timings and video size. */
  sandbox?: Pick<SandboxOptions, 'reviewDurationMs' | 'videoDurationMs' | 'videoFileBytes'>;
  /** Prefix of the temporary video folder used when VIDEO_STORE is unset. */
  tempStorePrefix?: string;
}

export interface LocalStack {
  server: DevServer;
  /** The Web UI's address. */
  uiUrl: string;
  sandbox: Sandbox;
  receiver: CallbackServer;
  /** The callback URLs' signing key, for a worker of one's own beside the stack's. */
  callbackSecret: string;
  codecServer: CodecServer;
  /** Payload encryption (PAYLOAD_ENCRYPTION_KEYS), else undefined: plain payloads. */
  encryption: DataConverter | undefined;
  store: VideoStoreConfig;
  /** The temporary video folder the stack made (VIDEO_STORE unset), else undefined. */
  tempStoreDir: string | undefined;
  client: Client;
  taskQueue: string;
  /** The worker's run: rejects if the worker fails while the stack is up. */
  workerRunning: Promise<void>;
  /** Closes every part (once); `keepVideos` leaves the temporary video folder in place. */
  stop(opts?: { keepVideos?: boolean }): Promise<void>;
}

export async function startLocalStack(options: LocalStackOptions = {}): Promise<LocalStack> {
  // Each part's close, pushed as it starts: run in reverse by stop() or by a start that fails.
  const closers: (() => Promise<void>)[] = [];
  // Every part is closed even when one fails; the first failure is then thrown (stopping fails, exit 1).
  const closeAll = async () => {
    const failures: unknown[] = [];
    for (const close of closers.reverse()) await close().catch((err: unknown) => failures.push(err));
    closers.length = 0;
    if (failures.length > 0) throw failures[0];
  };
  try {
    const encryption = dataConverterFromEnv();
    // The UI's port is chosen first: it is the origin the codec server lets in.
    const uiPort = options.uiPort || (await freePort());
    const codecServer = await startCodecServer({
      codec: encryption?.payloadCodecs?.[0],
      corsOrigins: [`http://127.0.0.1:${uiPort}`, `http://localhost:${uiPort}`],
      port: 0,
    });
    closers.push(() => codecServer.close());
    const server = await startDevServer({
      ui: true,
      uiPort,
      uiCodecEndpoint: codecServer.url,
      ...(options.temporalPort ? { port: options.temporalPort } : {}),
    });
    closers.push(() => server.teardown());
    // The callback receiver listens on loopback: the stack opts in to private addresses (ALLOW_PRIVATE_URLS).
    const sandbox = await startSandbox({ ...options.sandbox, allowPrivateUrls: true });
    closers.push(() => sandbox.close());
    const client = new Client({
      connection: server.env.connection,
      namespace: server.namespace,
      ...(encryption ? { dataConverter: encryption } : {}),
    });
    const callbackSecret = randomBytes(32).toString('base64url');
    const receiver = await startCallbackServer({ client, secret: callbackSecret, port: 0 });
    closers.push(() => receiver.close());

    // Finished videos go to VIDEO_STORE when set, otherwise to a new temporary folder the stack owns.
    const configured = loadVideoStoreConfig();
    const tempStoreDir = configured
      ? undefined
      : mkdtempSync(join(tmpdir(), options.tempStorePrefix ?? 'review-video-dev-'));
    const store: VideoStoreConfig = configured ?? { kind: 'file', dir: tempStoreDir! };
    let keepVideos = false;
    if (tempStoreDir)
      closers.push(async () => void (keepVideos || rmSync(tempStoreDir, { recursive: true, force: true })));

    // The same plugin a user's worker takes; it closes the clients it made when the worker stops.
    const plugin = new ReviewVideoPlugin({
      services: {
        video: { baseUrl: sandbox.videoBaseUrl, apiKey: sandbox.apiKey, timeoutMs: 10_000, allowPrivateUrls: true },
        review: {
          baseUrl: sandbox.reviewBaseUrl,
          accessToken: sandbox.accessToken,
          timeoutMs: 10_000,
          allowPrivateUrls: true,
        },
      },
      callbacks: { publicUrl: receiver.url, secret: callbackSecret },
      store,
      dataConverter: encryption ?? {},
    });
    const taskQueue = DEFAULT_TASK_QUEUE;
    const worker = await Worker.create({
      connection: server.env.nativeConnection,
      namespace: server.namespace,
      taskQueue,
      plugins: [plugin],
    });
    const running = worker.run();
    let stopping: Promise<void> | undefined;
    closers.push(async () => {
      worker.shutdown();
      await running;
    });
    return {
      server,
      uiUrl: server.uiUrl ?? `http://127.0.0.1:${uiPort}`,
      sandbox,
      receiver,
      callbackSecret,
      codecServer,
      encryption,
      store,
      tempStoreDir,
      client,
      taskQueue,
      workerRunning: running,
      // Once: a second call (a failing worker during a Ctrl-C) waits for the first.
      stop: (opts = {}) => {
        keepVideos = opts.keepVideos ?? false;
        stopping ??= closeAll();
        return stopping;
      },
    };
  } catch (err) {
    // The start's own error is the one to report, not a close's.
    await closeAll().catch(() => undefined);
    throw err;
  }
}
