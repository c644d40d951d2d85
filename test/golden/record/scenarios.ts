// Every scenario the recorder runs, each producing the runs of one or more GOLDEN_PATHS: the
// ReviewThenGenerate paths (job-paths.ts), a batch that continues as new (two runs recorded),
// GenerateAndPoll on the unified video entry point, and a job with `notify` with its notification.
import { startReviewThenGenerate } from '../../../src/client/start.js';
import { notificationWorkflowId } from '../../../src/contract/notify.js';
import type { ReviewThenGenerateBatchInput } from '../../../src/job/batch-input.js';
import type { GenerateAndPollInput } from '../../../src/job/generate-and-poll-input.js';
import { GOLDEN_PATH_NAMES, type GoldenPathName } from '../paths.js';
import { JOB_DRIVERS } from './job-paths.js';
import { closed, until, type GoldenStack, type RecordedRun } from './stack.js';

export interface Scenario {
  names: GoldenPathName[];
  run(s: GoldenStack): Promise<RecordedRun[]>;
}

const batch: Scenario = {
  names: ['batch-continued-as-new', 'batch-final-run'],
  async run(s) {
    const job = (i: number) => ({
      task: {
        model: 'video-model-1',
        content: [
          { type: 'text', text: `golden batch job ${i}` },
          { type: 'image_url', image_url: { url: `https://cdn.example.com/golden/batch-${i}.jpg` } },
        ],
      },
      timing: { reviewMinQueryIntervalMs: 300, videoPollIntervalMs: 300 },
    });
    const input: ReviewThenGenerateBatchInput = { jobs: [job(0), job(1)], concurrency: 1, continueAsNewEvery: 1 };
    const handle = await s.client.workflow.start('ReviewThenGenerateBatch', {
      workflowId: 'golden-batch',
      taskQueue: s.taskQueue,
      args: [input],
    });
    await closed(handle);
    // The first run ends in continue-as-new; the handle without a run id reads the chain's last run.
    const last = await s.client.workflow.getHandle(handle.workflowId).describe();
    if (last.runId === handle.firstExecutionRunId) throw new Error('the batch did not continue as new');
    return [
      { name: 'batch-continued-as-new', handle, runId: handle.firstExecutionRunId },
      { name: 'batch-final-run', handle, runId: last.runId },
    ];
  },
};

const generateAndPoll: Scenario = {
  names: ['generate-and-poll'],
  async run(s) {
    const input: GenerateAndPollInput = {
      entryPoint: 'unifiedVideo',
      body: { model: 'video-model-1', prompt: 'golden generate-and-poll' },
      timing: { pollIntervalMs: 300, minQueryIntervalMs: 300, generationTimeoutMs: 30_000, callTimeoutMs: 5_000 },
    };
    const handle = await s.client.workflow.start('GenerateAndPoll', {
      workflowId: 'golden-generate-and-poll',
      taskQueue: s.taskQueue,
      args: [input],
    });
    return [{ name: 'generate-and-poll', handle: await closed(handle) }];
  },
};

const notified: Scenario = {
  names: ['notified', 'notification'],
  async run(s) {
    // The receiver refuses the first delivery: the notification's activity is retried, same webhook-id.
    s.webhooks.addFault({ mode: 'fail', times: 1 });
    const job = await startReviewThenGenerate(s.client, {
      businessKey: 'golden-notified',
      taskQueue: s.taskQueue,
      input: {
        task: {
          model: 'video-model-1',
          content: [
            { type: 'text', text: 'golden notified' },
            { type: 'image_url', image_url: { url: 'https://cdn.example.com/golden/notified.jpg' } },
          ],
        },
        review: {},
        notify: { url: s.webhooks.url },
        timing: { reviewMinQueryIntervalMs: 300, videoPollIntervalMs: 300, callbackFallbackPollMs: 10_000 },
      },
    });
    const handle = await closed(job.workflow);
    const { runId } = await handle.describe(); // one run: it is the first
    const child = s.client.workflow.getHandle(notificationWorkflowId(handle.workflowId, runId, 'succeeded'));
    await until(async () => (await child.describe()).status.name === 'COMPLETED', 'the notification delivered');
    return [
      { name: 'notified', handle },
      { name: 'notification', handle: child },
    ];
  },
};

export const SCENARIOS: Scenario[] = [
  ...Object.entries(JOB_DRIVERS).map(([name, drive]): Scenario => ({
    names: [name as GoldenPathName],
    run: async (s) => [{ name, handle: await drive(s, name) }],
  })),
  batch,
  generateAndPoll,
  notified,
];

/** Each path is produced by exactly one scenario (a path without one could never be recorded). */
export function assertScenariosCoverPaths(): void {
  const produced = SCENARIOS.flatMap((s) => s.names);
  const missing = GOLDEN_PATH_NAMES.filter((n) => !produced.includes(n));
  const twice = produced.filter((n, i) => produced.indexOf(n) !== i);
  if (missing.length || twice.length)
    throw new Error(`scenarios: no driver for [${missing.join(', ')}]; more than one for [${twice.join(', ')}]`);
}
