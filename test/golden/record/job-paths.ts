// How each ReviewThenGenerate path of GOLDEN_PATHS is driven: the sandbox's fault injection and outcomes
// (as the tests in test/workflows/ drive them) and short timings. Each returns the run to record once it
// has closed; the recorder checks how it ended against the path's `ends`.
import type { WorkflowHandle } from '@temporalio/client';
import { startReviewThenGenerate } from '../../../src/client/start.js';
import { progressQuery } from '../../../src/job/definitions.js';
import type { ReviewThenGenerateInput, Timing } from '../../../src/job/input.js';
import type { GoldenPathName } from '../paths.js';
import {
  GOLDEN_BUDGET_TENANT,
  GOLDEN_QUOTA_MODEL,
  GOLDEN_REVIEW_QUOTA_QUEUE,
  closed,
  until,
  type GoldenStack,
} from './stack.js';

const timing: Timing = {
  reviewMinQueryIntervalMs: 300,
  videoPollIntervalMs: 300,
  reviewTimeoutMs: 30_000,
  generationTimeoutMs: 30_000,
  createAmbiguityGraceMs: 1_000,
  callbackFallbackPollMs: 10_000,
  callTimeoutMs: 5_000,
};

/** The path's image, its name kept clear of the sandbox's URL hints (`reject`, `review-fail`, ...): faults are explicit. */
const imageUrl = (name: string) =>
  `https://cdn.example.com/golden/${name.replace(/reject|fail|cancel|expire/g, (w) => w.slice(0, 3))}.jpg`;

/** One image to review and a prompt that names the path (the sandbox's video outcomes match on it). */
function job(name: string, extra: Partial<ReviewThenGenerateInput> = {}): ReviewThenGenerateInput {
  return {
    task: {
      model: 'video-model-1',
      content: [
        { type: 'text', text: `golden ${name}` },
        { type: 'image_url', image_url: { url: imageUrl(name) }, role: 'reference_image' },
      ],
      ratio: '16:9',
      duration: 5,
    },
    review: {},
    callbacks: true,
    ...extra,
    timing: { ...timing, ...extra.timing },
  };
}

/** Starts the job as other services do (business key = workflow id) and waits until it closes. */
async function run(s: GoldenStack, name: string, input: ReviewThenGenerateInput): Promise<WorkflowHandle> {
  return closed(await start(s, name, input));
}

async function start(
  s: GoldenStack,
  name: string,
  input: ReviewThenGenerateInput,
  taskQueue = s.taskQueue,
): Promise<WorkflowHandle> {
  const job = await startReviewThenGenerate(s.client, { businessKey: `golden-${name}`, input, taskQueue });
  return job.workflow;
}

async function cancelWhen(handle: WorkflowHandle, ready: (p: Awaited<ReturnType<typeof progress>>) => boolean) {
  await until(async () => ready(await progress(handle)), 'the stage to cancel in');
  await handle.cancel();
  await handle.result().catch(() => undefined);
  return handle;
}
const progress = (handle: WorkflowHandle) => handle.query(progressQuery);

type JobDriver = (s: GoldenStack, name: string) => Promise<WorkflowHandle>;

/** A job of the model with a quota on the golden worker. */
const quotaJob = (name: string, extra: Partial<ReviewThenGenerateInput> = {}): ReviewThenGenerateInput => {
  const input = job(name, extra);
  return { ...input, task: { ...input.task, model: GOLDEN_QUOTA_MODEL } };
};

/** Starts `count` jobs of the quota's model whose tasks run long, and waits until each holds a slot. */
async function holdSlots(s: GoldenStack, name: string, count: number, durationMs: number) {
  s.sandbox.setVideoOutcome({ promptIncludes: `golden ${name}-holder` }, 'succeeded', durationMs);
  const holders: WorkflowHandle[] = [];
  for (let i = 0; i < count; i++) holders.push(await start(s, `${name}-holder-${i}`, quotaJob(`${name}-holder-${i}`)));
  for (const h of holders) await until(async () => (await progress(h)).stage === 'generating', 'a holder to generate');
  return holders;
}

export const JOB_DRIVERS: Partial<Record<GoldenPathName, JobDriver>> = {
  callbacks: (s, name) => run(s, name, job(name)),
  polling: (s, name) => {
    s.sandbox.setReviewTaskOutcome({ url: imageUrl(name) }, 'completed', 1_200);
    return run(s, name, job(name, { callbacks: false }));
  },
  'sync-review': (s, name) => run(s, name, job(name, { review: { mode: 'sync' } })),
  store: (s, name) => run(s, name, job(name, { store: true })),
  'failure-invalid-input': async (s, name) => {
    // Started without the helper (which refuses it): the workflow validates its input itself.
    const bad = { task: { model: '', content: [], ratio: '16/9' }, review: { urls: ['ftp://x/y.jpg'] } };
    const handle = await s.client.workflow.start('ReviewThenGenerate', {
      workflowId: `golden-${name}`,
      taskQueue: s.taskQueue,
      args: [bad],
    });
    await handle.result().catch(() => undefined);
    return handle;
  },
  'failure-review-rejected': (s, name) => {
    s.sandbox.setReviewVerdict(imageUrl(name), {
      passed: false,
      errorCode: 'FACE_NOT_AUTHORIZED',
      errorMessage: 'real person not authorized',
    });
    return run(s, name, job(name));
  },
  'failure-review-failed': (s, name) => {
    s.sandbox.setReviewTaskOutcome({ url: imageUrl(name) }, 'failed');
    return run(s, name, job(name));
  },
  'failure-review-cancelled': (s, name) => {
    s.sandbox.setReviewTaskOutcome({ url: imageUrl(name) }, 'cancelled');
    return run(s, name, job(name, { callbacks: false }));
  },
  'failure-review-timed-out': (s, name) => {
    s.sandbox.setReviewTaskOutcome({ url: imageUrl(name) }, 'completed', 60_000);
    return run(s, name, job(name, { timing: { reviewTimeoutMs: 1_000 } }));
  },
  'failure-video-request-rejected': (s, name) => {
    s.sandbox.addFault({
      operation: 'video.create',
      times: 1,
      fault: { type: 'status', status: 400, body: { error: { code: 'InvalidParameter', message: 'bad ratio' } } },
    });
    return run(s, name, job(name));
  },
  'failure-unauthorized': (s, name) => {
    s.sandbox.addFault({ operation: 'video.create', times: 1, fault: { type: 'status', status: 401 } });
    return run(s, name, job(name));
  },
  'failure-generation-failed': (s, name) => {
    s.sandbox.setVideoOutcome({ promptIncludes: `golden ${name}` }, 'failed');
    return run(s, name, job(name));
  },
  'failure-generation-cancelled': (s, name) => {
    s.sandbox.setVideoOutcome({ promptIncludes: `golden ${name}` }, 'cancelled');
    return run(s, name, job(name));
  },
  'failure-generation-expired': (s, name) => {
    s.sandbox.setVideoOutcome({ promptIncludes: `golden ${name}` }, 'expired');
    return run(s, name, job(name));
  },
  'failure-generation-timed-out': (s, name) => {
    s.sandbox.setVideoOutcome({ promptIncludes: `golden ${name}` }, 'succeeded', 60_000);
    return run(s, name, job(name, { timing: { generationTimeoutMs: 1_000 } }));
  },
  'failure-submit-unconfirmed-review': (s, name) => {
    s.sandbox.addFault({ operation: 'review.submitAsync', times: 1, fault: { type: 'status', status: 500 } });
    return run(s, name, job(name, { timing: { reviewTimeoutMs: 1_000 } }));
  },
  'failure-submit-unconfirmed-create': (s, name) => {
    s.sandbox.addFault({ operation: 'video.create', times: 1, fault: { type: 'status', status: 500 } });
    return run(s, name, job(name, { timing: { generationTimeoutMs: 1_000 } }));
  },
  'failure-video-store-failed': (s, name) => {
    s.sandbox.setVideoFileFault({ mode: 'expired', times: 2 });
    return run(s, name, job(name, { store: true }));
  },
  'cancel-reviewing': async (s, name) => {
    s.sandbox.setReviewTaskOutcome({ url: imageUrl(name) }, 'completed', 60_000);
    const handle = await start(s, name, job(name));
    return cancelWhen(handle, (p) => p.review.tasks.some((t) => t.taskId !== ''));
  },
  'cancel-generating': async (s, name) => {
    s.sandbox.setVideoOutcome({ promptIncludes: `golden ${name}` }, 'succeeded', 60_000);
    const handle = await start(s, name, job(name));
    return cancelWhen(handle, (p) => p.stage === 'generating');
  },
  'review-submit-ambiguous-adopted': (s, name) => {
    s.sandbox.addFault({
      operation: 'review.submitAsync',
      times: 1,
      fault: { type: 'status', status: 500, commit: true },
    });
    return run(s, name, job(name));
  },
  'create-ambiguous-adopted': (s, name) => {
    s.sandbox.addFault({ operation: 'video.create', times: 1, fault: { type: 'status', status: 500, commit: true } });
    return run(s, name, job(name));
  },
  'create-resubmitted': (s, name) => {
    s.sandbox.addFault({ operation: 'video.create', times: 1, fault: { type: 'status', status: 500 } });
    return run(s, name, job(name, { resubmitOnAmbiguity: true }));
  },
  'quota-refused-then-admitted': async (s, name) => {
    // The worker allows 2 tasks of the model, the provider 1: the path's create is refused until the holder ends.
    s.sandbox.setQuotas({ videoMaxTasksInFlightByModel: { [GOLDEN_QUOTA_MODEL]: 1 } });
    const [holder] = await holdSlots(s, name, 1, 3_000);
    const handle = await run(s, name, quotaJob(name));
    await holder!.result();
    s.sandbox.setQuotas({ videoMaxTasksInFlightByModel: null });
    return handle;
  },
  'quota-admitted-at-once': (s, name) => run(s, name, quotaJob(name)),
  'failure-budget-exceeded': async (s, name) => {
    // The tenant's one task of the day goes to a first job; the path's job then fails at once.
    await run(s, `${name}-first`, job(`${name}-first`, { fairnessKey: GOLDEN_BUDGET_TENANT }));
    return run(s, name, job(name, { fairnessKey: GOLDEN_BUDGET_TENANT, onBudgetExceeded: 'fail' }));
  },
  'review-quota-waited': async (s, name) => {
    // The review quota is 1 task: a first job's slow review holds it, the path's submit waits for it.
    const holderName = `${name}-holder`;
    s.sandbox.setReviewTaskOutcome({ url: imageUrl(holderName) }, 'completed', 2_000);
    const holder = await start(s, holderName, job(holderName), GOLDEN_REVIEW_QUOTA_QUEUE);
    await until(async () => (await progress(holder)).review.tasks.some((t) => t.taskId !== ''), 'the holder to submit');
    const handle = await start(s, name, job(name), GOLDEN_REVIEW_QUOTA_QUEUE);
    await until(async () => (await progress(handle)).stage === 'waiting_for_quota', 'the path to wait for the slot');
    await closed(handle);
    await closed(holder);
    return handle;
  },
  'failure-admission-timed-out': async (s, name) => {
    const holders = await holdSlots(s, name, 2, 60_000);
    const handle = await run(s, name, quotaJob(name, { timing: { admissionTimeoutMs: 1_000 } }));
    for (const h of holders) await cancelWhen(h, () => true);
    return handle;
  },
};
