// The job mix of a soak run and the outcome each job must end with. Every job names itself in its prompt
// and media URLs (`[job <id>]`, `/soak/<id>/`), so the sandbox's tasks can be counted per job whatever the
// job's callback setting. Hint words in URL paths and prompts script the sandbox's verdicts.
import type { ReviewThenGenerateInput, Timing } from '../../src/job/input.js';
import type { Rng } from './rng.js';

export type JobKind =
  | 'succeed'
  | 'succeed-sync-review'
  | 'succeed-two-batches'
  | 'succeed-no-review'
  | 'rejected'
  | 'review-failed'
  | 'review-cancelled'
  | 'video-failed';

/** `succeeded`, or the ApplicationFailure type the workflow must fail with. */
export type ExpectedOutcome = 'succeeded' | 'ReviewRejected' | 'ReviewFailed' | 'ReviewCancelled' | 'GenerationFailed';

export interface SoakJob {
  id: string;
  workflowId: string;
  kind: JobKind;
  callbacks: boolean;
  /** Started with `resubmitOnAmbiguity: true`: an ambiguous submit or create is sent again after the grace. */
  optedIn: boolean;
  expected: ExpectedOutcome;
  /** How many video tasks the job must leave in the sandbox: 1 when review passes, else 0. */
  expectedTasks: 0 | 1;
  input: ReviewThenGenerateInput;
}

/** Video models, by the job's callback setting (every create carries a callback_url all the same). */
export const MODEL_CALLBACKS = 'soak-video-cb';
export const MODEL_POLLING = 'soak-video-poll';

const MIX: ReadonlyArray<readonly [number, JobKind]> = [
  [62, 'succeed'],
  [5, 'succeed-sync-review'],
  [6, 'succeed-two-batches'],
  [3, 'succeed-no-review'],
  [6, 'rejected'],
  [6, 'review-failed'],
  [6, 'review-cancelled'],
  [6, 'video-failed'],
];

const EXPECTED: Record<JobKind, ExpectedOutcome> = {
  succeed: 'succeeded',
  'succeed-sync-review': 'succeeded',
  'succeed-two-batches': 'succeeded',
  'succeed-no-review': 'succeeded',
  rejected: 'ReviewRejected',
  'review-failed': 'ReviewFailed',
  'review-cancelled': 'ReviewCancelled',
  'video-failed': 'GenerationFailed',
};

/** Named rather than left to the default: a job notifies its outcome once, and no stage. */
const OUTCOME_EVENTS = ['succeeded', 'failed', 'cancelled'] as const;

const JOB_TAG = /\[job ([\w-]+)\]/;

/** The job id a create body names in its prompt (undefined for a body that is not a soak job's). */
export function jobIdOfCreateBody(body: unknown): string | undefined {
  const content = (body as { content?: unknown } | undefined)?.content;
  if (!Array.isArray(content)) return undefined;
  for (const item of content) {
    const text = (item as { type?: unknown; text?: unknown } | undefined)?.text;
    const m = typeof text === 'string' ? JOB_TAG.exec(text) : null;
    if (m) return m[1];
  }
  return undefined;
}

/** The job id a review task's URLs name. */
export function jobIdOfUrl(url: string): string | undefined {
  return /\/soak\/([\w-]+)\//.exec(url)?.[1];
}

/**
 * `optInShare`: the share of jobs started with `resubmitOnAmbiguity: true` (0 = none). `notifyUrl`: every
 * job notifies its outcome there (the soak's webhook receiver), whatever the outcome.
 */
export function planJobs(
  n: number,
  runId: string,
  rng: Rng,
  timing: Timing,
  optInShare = 0,
  notifyUrl?: string,
): SoakJob[] {
  const jobs: SoakJob[] = [];
  for (let i = 0; i < n; i++) {
    const id = `${runId}-j${String(i + 1).padStart(4, '0')}`;
    const kind = rng.weighted(MIX);
    // Sync review has no callback of its own; the rest is a 70/30 mix of callbacks and polling.
    const callbacks = rng.chance(0.7);
    const optedIn = optInShare > 0 && rng.chance(optInShare);
    const expected = EXPECTED[kind];
    jobs.push({
      id,
      workflowId: `soak-${id}`,
      kind,
      callbacks,
      optedIn,
      expected,
      expectedTasks: expected === 'succeeded' || expected === 'GenerationFailed' ? 1 : 0,
      input: {
        ...inputFor(id, kind, callbacks, timing),
        ...(optedIn ? { resubmitOnAmbiguity: true } : {}),
        ...(notifyUrl ? { notify: { url: notifyUrl, events: [...OUTCOME_EVENTS] } } : {}),
      },
    });
  }
  return jobs;
}

function inputFor(id: string, kind: JobKind, callbacks: boolean, timing: Timing): ReviewThenGenerateInput {
  const base = `https://cdn.example.com/soak/${id}`;
  const image = (name: string) => ({
    type: 'image_url' as const,
    image_url: { url: `${base}/${name}.jpg` },
    role: 'reference_image',
  });
  const prompt = `[job ${id}] A person walks along the beach at sunset${kind === 'video-failed' ? ' (video-fail)' : ''}`;
  const content: ReviewThenGenerateInput['task']['content'] = [{ type: 'text', text: prompt }];
  if (kind === 'rejected') content.push(image('portrait'), image('reject-this'));
  else if (kind === 'review-failed') content.push(image('review-fail'));
  else if (kind === 'review-cancelled') content.push(image('review-cancel'));
  else if (kind === 'succeed-two-batches')
    content.push(image('portrait'), {
      type: 'video_url',
      video_url: { url: `${base}/motion.mp4` },
      role: 'reference_video',
    });
  else if (kind !== 'succeed-no-review') content.push(image('portrait'));
  return {
    task: {
      model: callbacks ? MODEL_CALLBACKS : MODEL_POLLING,
      content,
      ratio: '16:9',
      duration: 5,
      resolution: '720p',
    },
    ...(kind === 'succeed-no-review'
      ? {}
      : { review: kind === 'succeed-sync-review' ? { mode: 'sync' as const } : {} }),
    callbacks,
    timing,
  };
}
