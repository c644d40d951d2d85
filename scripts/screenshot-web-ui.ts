// Screenshots of the Temporal Web UI for docs/web-ui.md (docs/images/): the workflow list and one workflow
// page, showing each run's summary and stage. Starts the local stack of `npm run dev` (dev server with the
// UI and our search attributes, sandbox, callback receiver, worker) on free ports; runs a few jobs (one held in "generating", one rejected, a small batch);
// then photographs the UI with Debian's headless Chromium (driven by playwright-core, scripts/chromium.ts)
// and stops everything.
// Usage: npx tsx scripts/screenshot-web-ui.ts [output-dir]   (default docs/images; needs /usr/bin/chromium or CHROMIUM=path)
import { mkdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { startReviewThenGenerate, startReviewThenGenerateBatch, type ReviewJobHandle } from '../src/client/index.js';
import { startLocalStack } from '../src/dev/local-stack.js';
import type { ReviewThenGenerateInput } from '../src/job/input.js';
import { openChromium, requireChromium } from './chromium.js';

const outDir = resolve(process.argv[2] ?? 'docs/images');

function job(model: string, prompt: string, image: string): ReviewThenGenerateInput {
  return {
    task: {
      model,
      content: [
        { type: 'text', text: prompt },
        { type: 'image_url', image_url: { url: `https://cdn.example.com/demo/${image}` }, role: 'reference_image' },
      ],
      ratio: '16:9',
      duration: 5,
      resolution: '720p',
    },
    review: {},
    callbacks: true,
    timing: { reviewMinQueryIntervalMs: 500, videoPollIntervalMs: 1_000, callbackFallbackPollMs: 10_000 },
  };
}

/** The UI keeps its list columns in localStorage: show our search attributes beside the defaults. */
const LIST_COLUMNS = ['Status', 'Workflow ID', 'ReviewStage', 'VideoModel', 'VideoTaskId', 'BatchId', 'Type'].map(
  (label, i) => ({ label, pinned: i < 2 }),
);

async function main() {
  requireChromium('screenshot-web-ui');
  Runtime.install({ logger: new DefaultLogger('WARN') });
  mkdirSync(outDir, { recursive: true });
  // The stack of `npm run dev` (src/dev/local-stack.ts): the release's own worker, sandbox and receiver.
  const stack = await startLocalStack({ sandbox: { reviewDurationMs: 500, videoDurationMs: 1_500 } });
  const { client, sandbox, server, taskQueue } = stack;
  try {
    // One job stays in "generating" (a 10-minute video), one is rejected by the review, others finish.
    sandbox.setVideoOutcome({ promptIncludes: 'time-lapse' }, 'succeeded', 600_000);
    sandbox.setReviewVerdict('https://cdn.example.com/demo/crowd.jpg', {
      passed: false,
      errorCode: 'E_REAL_PERSON',
      errorMessage: 'a real person was detected',
    });
    const start = (key: string, input: ReviewThenGenerateInput) =>
      startReviewThenGenerate(client, { businessKey: key, input, taskQueue });
    const done: ReviewJobHandle[] = [
      await start(
        'order-1001',
        job('video-model-1', 'A golden retriever runs along the beach at sunset, slow motion', 'dog.jpg'),
      ),
      await start(
        'order-1002',
        job('video-model-2', 'Paper boats drifting down a rainy street, cinematic', 'boats.png'),
      ),
    ];
    const rejected = await start('order-1003', job('video-model-1', 'A crowd cheering at a concert', 'crowd.jpg'));
    const generating = await start(
      'order-1004',
      job('video-model-2', 'A city skyline time-lapse from dusk to night', 'skyline.jpg'),
    );
    const batch = await startReviewThenGenerateBatch(client, {
      batchId: 'nightly-2026-11-21',
      batch: {
        jobs: ['fox.jpg', 'owl.jpg', 'deer.jpg'].map((img) =>
          job('video-model-1', `A ${img.split('.')[0]} in a snowy forest`, img),
        ),
        concurrency: 2,
      },
      taskQueue,
    });
    await Promise.all([...done.map((h) => h.result()), rejected.result().catch(() => undefined), batch.result()]);
    for (;;) {
      if ((await generating.progress()).stage === 'generating') break;
      await new Promise((r) => setTimeout(r, 200));
    }
    // Let the visibility store catch up with the last upserts.
    await new Promise((r) => setTimeout(r, 2_000));

    const ui = `${server.uiUrl}/namespaces/${server.namespace}`;
    const browser = await openChromium();
    try {
      await browser.goto(`${ui}/workflows`);
      await browser.waitForText(['order-1001']);
      await browser.evaluate(
        `localStorage.setItem('namespace-workflow-table-columns', ${JSON.stringify(JSON.stringify({ [server.namespace]: LIST_COLUMNS }))})`,
      );
      const shots = [
        {
          file: 'web-ui-workflows.png',
          url: `${ui}/workflows`,
          expect: ['ReviewStage', 'generating', 'nightly-2026-11-21/0'],
          width: 1700,
          height: 700,
        },
        {
          file: 'web-ui-generating-filter.png',
          url: `${ui}/workflows?query=${encodeURIComponent('ReviewStage="generating"')}`,
          expect: ['order-1004'],
          width: 1700,
          height: 500,
        },
        {
          file: 'web-ui-workflow.png',
          url: `${ui}/workflows/${generating.workflowId}/${generating.runId}/user-metadata`,
          expect: ['Current Details', 'time-lapse', 'Stage: generating'],
        },
        {
          file: 'web-ui-search-attributes.png',
          url: `${ui}/workflows/${generating.workflowId}/${generating.runId}/metadata`,
          expect: ['ReviewStage', 'inputSha256'],
        },
        {
          file: 'web-ui-workflow-history.png',
          url: `${ui}/workflows/${generating.workflowId}/${generating.runId}/history`,
          expect: ['order-1004', 'Event History', 'poll video task'],
          width: 1700,
          height: 1300,
        },
      ];
      for (const shot of shots) {
        const file = join(outDir, shot.file);
        await browser.resize(shot.width ?? 1400, shot.height ?? 900);
        await browser.goto(shot.url);
        await browser.waitForText(shot.expect);
        await browser.screenshot(file);
        console.log(`saved ${file} (${statSync(file).size} bytes) from ${shot.url}`);
      }
    } finally {
      await browser.close();
    }
    await generating.cancel();
    await generating.result().catch(() => undefined);
  } finally {
    await stack.stop();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(`screenshot-web-ui failed: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
