// `npm run demo`: the main job on embedded defaults. Starts a Temporal dev server (with its Web UI), the
// sandbox of both services, the callback receiver and a worker; runs one ReviewThenGenerate job (one
// image to review and a prompt) while printing its progress; then stops everything it started. With
// PAYLOAD_ENCRYPTION_KEYS (or _FILE) set, every payload is encrypted and the Web UI decodes through a codec
// server the demo starts too (docs/encryption.md).
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@temporalio/client';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { startCallbackServer } from './callbacks/server.js';
import { dataConverterFromEnv, describeEncryption } from './codec/data-converter.js';
import { startCodecServer, type CodecServer } from './codec/server.js';
import { DEFAULT_TASK_QUEUE } from './config.js';
import { freePort, startDevServer } from './dev/temporal-dev-server.js';
import { ReviewVideoPlugin } from './plugin.js';
import { startSandbox } from './sandbox/index.js';
import { describeVideoStore, loadVideoStoreConfig } from './store/config.js';
import { startReviewThenGenerate } from './client/index.js';
import type { Progress } from './workflows/definitions.js';
import type { ReviewThenGenerateInput } from './workflows/input.js';

const line = (p: Progress) =>
  [
    `stage=${p.stage}`,
    ...p.review.tasks.map(
      (t) =>
        `review ${t.taskId || '-'}: ${t.status}${t.totalCount !== undefined ? ` ${t.doneCount ?? 0}/${t.totalCount}` : ''}`,
    ),
    p.taskId ? `video ${p.taskId}: ${p.state ?? 'created'}` : undefined,
    `calls: review queries ${p.queries.review}, video queries ${p.queries.video}; callbacks ${p.callbacks.review + p.callbacks.video}`,
  ]
    .filter(Boolean)
    .join(' | ');

async function main() {
  const started = Date.now();
  // The demo prints its own progress; the SDK's per-worker INFO lines would drown it.
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const encryption = dataConverterFromEnv();
  // The UI's port is chosen first: it is the origin the codec server lets in.
  const uiPort = await freePort();
  const codecPort = encryption ? await freePort() : undefined;
  const uiCodecEndpoint = codecPort ? `http://127.0.0.1:${codecPort}` : undefined;
  const server = await startDevServer({ ui: true, uiPort, ...(uiCodecEndpoint ? { uiCodecEndpoint } : {}) });
  console.log(`Temporal dev server ${server.cliVersion} at ${server.address}`);
  console.log(`Temporal Web UI: ${server.uiUrl}`);
  let codecServer: CodecServer | undefined;
  if (encryption) {
    codecServer = await startCodecServer({
      codec: encryption.payloadCodecs?.[0],
      corsOrigins: [`http://127.0.0.1:${uiPort}`, `http://localhost:${uiPort}`],
      port: codecPort!,
    });
    console.log(`payload encryption ${describeEncryption(encryption)}; the Web UI decodes through ${codecServer.url}`);
  } else console.log('payload encryption off (set PAYLOAD_ENCRYPTION_KEYS to turn it on: docs/encryption.md)');
  // The callback receiver listens on loopback: the demo opts in to private addresses (ALLOW_PRIVATE_URLS).
  const sandbox = await startSandbox({
    reviewDurationMs: 1_500,
    videoDurationMs: 3_000,
    allowPrivateUrls: true,
    videoFileBytes: 50 * 1024 * 1024,
  });
  console.log(`sandbox: video service ${sandbox.videoBaseUrl}, review service ${sandbox.reviewBaseUrl}`);
  const client = new Client({
    connection: server.env.connection,
    namespace: server.namespace,
    ...(encryption ? { dataConverter: encryption } : {}),
  });
  const secret = randomBytes(32).toString('base64url');
  const receiver = await startCallbackServer({ client, secret, port: 0 });
  console.log(`callback receiver: ${receiver.url}`);

  // The finished video is kept in VIDEO_STORE when set, otherwise in a new temporary folder.
  const store = loadVideoStoreConfig() ?? { kind: 'file', dir: mkdtempSync(join(tmpdir(), 'review-video-demo-')) };
  console.log(`video store: ${describeVideoStore(store)}`);

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
    callbacks: { publicUrl: receiver.url, secret },
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
  try {
    const input: ReviewThenGenerateInput = {
      task: {
        model: 'video-model-1',
        content: [
          { type: 'text', text: 'A golden retriever runs along the beach at sunset, slow motion' },
          { type: 'image_url', image_url: { url: 'https://cdn.example.com/demo/dog.jpg' }, role: 'reference_image' },
        ],
        ratio: '16:9',
        duration: 5,
        resolution: '720p',
      },
      review: {},
      callbacks: true,
      store: true,
      timing: { reviewMinQueryIntervalMs: 1_000, videoPollIntervalMs: 2_000, callbackFallbackPollMs: 10_000 },
    };
    // Started as other services would: business key as workflow id, input validated first, search
    // attributes and the static summary shown in the Web UI.
    const workflowId = `demo-${randomUUID()}`;
    const handle = await startReviewThenGenerate(client, { businessKey: workflowId, input, taskQueue });
    console.log(
      `started ReviewThenGenerate ${workflowId}: ${server.uiUrl}/namespaces/${server.namespace}/workflows/${workflowId}`,
    );
    let last = '';
    const ticker = setInterval(() => {
      handle
        .progress()
        .then((p) => {
          const text = line(p);
          if (text !== last) console.log(`  ${text}`);
          last = text;
        })
        .catch(() => undefined);
    }, 300);
    try {
      const result = await handle.result();
      console.log(`  ${line(await handle.progress())}`);
      console.log(`done: task ${result.taskId} ${result.state}, video ${result.videoUrl}`);
      const stored = result.stored;
      if (stored) {
        const where = stored.url.startsWith('file:') ? fileURLToPath(stored.url) : stored.url;
        console.log(`stored: ${where} (${stored.bytes} bytes, sha256 ${stored.sha256}, ${stored.contentType})`);
      }
      console.log(`approved assets: ${result.assets.map((a) => `${a.sourceUrl} -> ${a.assetUrl}`).join(', ')}`);
      const calls = sandbox
        .requests()
        .reduce<Record<string, number>>((acc, r) => ({ ...acc, [r.operation]: (acc[r.operation] ?? 0) + 1 }), {});
      console.log(`API calls made: ${JSON.stringify(calls)}`);
    } finally {
      clearInterval(ticker);
    }
  } finally {
    worker.shutdown();
    await running;
    await receiver.close();
    await sandbox.close();
    await codecServer?.close();
    await server.teardown();
    console.log(`stopped everything in ${((Date.now() - started) / 1000).toFixed(1)} s total`);
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(`demo failed: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
