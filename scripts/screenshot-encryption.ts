// The screenshot of docs/encryption.md: a run whose every payload is encrypted, shown decoded by the Web UI
// through our codec server, and the same page once the codec server is gone (ciphertext only). Starts its
// own dev server (UI pointed at the codec server with --ui-codec-endpoint, as the demo does), the sandbox,
// the callback receiver and a worker with a throw-away key; photographs the UI with Debian's headless Chromium
// (scripts/chromium.ts).
// Usage: npx tsx scripts/screenshot-encryption.ts [output-dir]   (default docs/images; CHROMIUM=path)
import { randomBytes } from 'node:crypto';
import { mkdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Client } from '@temporalio/client';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { startCallbackServer } from '../src/callbacks/server.js';
import { startReviewThenGenerate } from '../src/client/index.js';
import { encryptionDataConverter } from '../src/codec/data-converter.js';
import { newPayloadKey, parsePayloadKeys } from '../src/codec/keys.js';
import { startCodecServer } from '../src/codec/server.js';
import { freePort, startDevServer } from '../src/dev/temporal-dev-server.js';
import { ReviewVideoPlugin } from '../src/plugin.js';
import { startSandbox } from 'temporal-review-video-sandbox';
import { openChromium, requireChromium } from './chromium.js';

const outDir = resolve(process.argv[2] ?? 'docs/images');
const taskQueue = 'video-generation';
const PROMPT = 'A golden retriever runs along the beach at sunset, slow motion';

async function main() {
  requireChromium('screenshot-encryption');
  Runtime.install({ logger: new DefaultLogger('WARN') });
  mkdirSync(outDir, { recursive: true });
  const dataConverter = encryptionDataConverter(parsePayloadKeys(`demo-2026-11:${newPayloadKey()}`));
  const [uiPort, codecPort] = [await freePort(), await freePort()];
  const server = await startDevServer({ ui: true, uiPort, uiCodecEndpoint: `http://127.0.0.1:${codecPort}` });
  const codec = await startCodecServer({
    codec: dataConverter.payloadCodecs![0],
    corsOrigins: [`http://127.0.0.1:${uiPort}`],
    port: codecPort,
  });
  const sandbox = await startSandbox({ reviewDurationMs: 500, videoDurationMs: 1_500, allowPrivateUrls: true });
  const client = new Client({ connection: server.env.connection, namespace: server.namespace, dataConverter });
  const secret = randomBytes(32).toString('base64url');
  const receiver = await startCallbackServer({ client, secret, port: 0 });
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
    dataConverter,
  });
  const worker = await Worker.create({
    connection: server.env.nativeConnection,
    namespace: server.namespace,
    taskQueue,
    plugins: [plugin],
  });
  const running = worker.run();
  try {
    const job = await startReviewThenGenerate(client, {
      businessKey: 'order-2001',
      taskQueue,
      input: {
        task: {
          model: 'video-model-1',
          content: [
            { type: 'text', text: PROMPT },
            { type: 'image_url', image_url: { url: 'https://cdn.example.com/demo/dog.jpg' }, role: 'reference_image' },
          ],
          ratio: '16:9',
          duration: 5,
          resolution: '720p',
        },
        review: {},
        callbacks: true,
        timing: { reviewMinQueryIntervalMs: 500, videoPollIntervalMs: 1_000, callbackFallbackPollMs: 10_000 },
      },
    });
    const result = await job.result();
    const page = `${server.uiUrl}/namespaces/${server.namespace}/workflows/${job.workflowId}/${job.runId}/history`;
    const browser = await openChromium({ width: 1500, height: 1100 });
    try {
      const shots = [
        { file: 'encryption-decoded.png', expect: ['order-2001', PROMPT, result.videoUrl!] },
        // The same page once no codec server answers: what Temporal itself stores.
        { file: 'encryption-without-codec.png', expect: ['order-2001', 'Codec Server could not connect'] },
      ];
      for (const shot of shots) {
        if (shot.file === 'encryption-without-codec.png') await codec.close();
        await browser.goto(page);
        await browser.waitForText(shot.expect);
        const file = join(outDir, shot.file);
        await browser.screenshot(file);
        console.log(`saved ${file} (${statSync(file).size} bytes) from ${page}`);
      }
    } finally {
      await browser.close();
    }
  } finally {
    worker.shutdown();
    await running;
    await receiver.close();
    await sandbox.close();
    await codec.close(); // a second close is harmless
    await server.teardown();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(`screenshot-encryption failed: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
