// `npm run demo`: the main job on embedded defaults. Starts the local stack (src/dev/local-stack.ts: a
// Temporal dev server with its Web UI, the sandbox of both services, the callback receiver, the codec
// server and a worker); runs one ReviewThenGenerate job (one image to review and a prompt) while printing
// its progress; then stops everything it started and removes the video it wrote. With --keep, the stack
// and the video stay until Ctrl-C, to look at the run in the Web UI. With PAYLOAD_ENCRYPTION_KEYS (or
// _FILE) set, every payload is encrypted and the Web UI decodes through the codec server
// (docs/encryption.md).
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { startReviewThenGenerate } from '../client/index.js';
import { startLocalStack } from './local-stack.js';
import { stackAddresses, stackEnvLines } from './stack-report.js';
import { stopOnSignal } from './stop-signal.js';
import type { Progress } from '../job/definitions.js';
import type { ReviewThenGenerateInput } from '../job/input.js';

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

async function main(argv: string[]) {
  const { values } = parseArgs({ args: argv, options: { keep: { type: 'boolean' } } });
  const keep = values.keep ?? false;
  const started = Date.now();
  // The demo prints its own progress; the SDK's per-worker INFO lines would drown it.
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const stack = await startLocalStack({
    sandbox: { reviewDurationMs: 1_500, videoDurationMs: 3_000, videoFileBytes: 50 * 1024 * 1024 },
    tempStorePrefix: 'review-video-demo-',
  });
  for (const text of stackAddresses(stack)) console.log(text);
  const { server, sandbox, client, taskQueue } = stack;
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
      `started ReviewThenGenerate ${workflowId}: ${stack.uiUrl}/namespaces/${server.namespace}/workflows/${workflowId}`,
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
      // The last progress line is for show: a query the server could not answer this once (the run was
      // just evicted from the worker's cache, on a busy machine) must not fail a job that succeeded.
      const final = await handle.progress().catch(() => undefined);
      if (final) console.log(`  ${line(final)}`);
      console.log(`done: task ${result.taskId} ${result.state}, video ${result.videoUrl}`);
      const stored = result.stored;
      if (stored) {
        const where = stored.url.startsWith('file:') ? fileURLToPath(stored.url) : stored.url;
        console.log(`stored: ${where} (${stored.bytes} bytes, sha256 ${stored.sha256}, ${stored.contentType})`);
        if (stack.tempStoreDir && !keep) console.log('  (removed at exit with its folder; --keep keeps it)');
      }
      console.log(`approved assets: ${result.assets.map((a) => `${a.sourceUrl} -> ${a.assetUrl}`).join(', ')}`);
      const calls = sandbox
        .requests()
        .reduce<Record<string, number>>((acc, r) => ({ ...acc, [r.operation]: (acc[r.operation] ?? 0) + 1 }), {});
      console.log(`API calls made: ${JSON.stringify(calls)}`);
    } finally {
      clearInterval(ticker);
    }
  } catch (err) {
    await stack.stop();
    throw err;
  }
  if (!keep) {
    await stack.stop();
    console.log(`stopped everything in ${((Date.now() - started) / 1000).toFixed(1)} s total`);
    return;
  }
  // --keep: everything stays up (and the video stays on disk) until Ctrl-C.
  stopOnSignal(() => stack.stop({ keepVideos: true }));
  console.log('');
  for (const text of stackEnvLines(stack)) console.log(text);
  console.log(`\n--keep: the stack stays up for the Web UI (${stack.uiUrl}); Ctrl-C stops it`);
  await new Promise<never>(() => undefined);
}

main(process.argv.slice(2)).then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(`demo failed: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
