// The job's side of src/contract/job-needs.ts: at the start, before any call, the worker says in one
// activity whether it has every setting the job depends on (store, notify, the length a budget in seconds
// charges, a store for a result with no public URL), and where a job's notifications go. A job that needs
// nothing schedules nothing; one the worker cannot finish fails InvalidInput naming every field and
// setting (e.g. `store: needs VIDEO_STORE ...`).
import { ActivityFailure, isCancellation, proxyActivities } from '@temporalio/workflow';
import { invalidRunInput } from '../contract/index.js';
import { NEED_FIELDS, type JobNeeds, type JobNeedsActivities } from '../contract/job-needs.js';
import type { NotifyTarget } from '../contract/notify.js';
import { formatIssues, type ValidationIssue } from '../model/validation.js';
import { billedSecondsOf } from '../model/video/billed-seconds.js';
import { TASK_ADAPTERS } from '../model/video/gateway-adapters.js';
import type { GenerateAndPollJob } from '../job/generate-and-poll-input.js';
import type { ReviewThenGenerateJob } from '../job/input.js';

type NeedingJob = Pick<ReviewThenGenerateJob, 'store' | 'task' | 'fairnessKey' | 'review' | 'notify'>;

export function jobNeeds(job: NeedingJob): JobNeeds {
  // Asked only where a review would be paid for first: without one, the create refuses before any call.
  const lengthUnsaid = job.review !== undefined && 'unknown' in billedSecondsOf('native', job.task);
  return {
    ...(job.store ? { store: true as const } : {}),
    ...(lengthUnsaid ? { unsaidLength: { tenant: job.fairnessKey } } : {}),
    ...(job.notify ? { notify: { url: job.notify.url, windowMs: job.notify.windowMs } } : {}),
  };
}

/** What a GenerateAndPoll job needs: a store where its entry point's result has no public URL. */
export function gatewayJobNeeds(job: Pick<GenerateAndPollJob, 'entryPoint'>): JobNeeds {
  return TASK_ADAPTERS[job.entryPoint].resultDownload ? { keptResult: { entryPoint: job.entryPoint } } : {};
}

/** What the worker answered a job it can finish: where its notifications go, when it has `notify`. */
export interface MetNeeds {
  notify?: Omit<NotifyTarget, 'events'> | undefined;
}

/** Throws InvalidInput when the worker lacks a setting the job needs; schedules nothing when it needs none. */
export async function checkJobNeeds(needs: JobNeeds): Promise<MetNeeds> {
  const asked = Object.keys(needs) as Array<keyof JobNeeds>;
  if (asked.length === 0) return {};
  const { rtgCheckJobNeeds } = proxyActivities<JobNeedsActivities>({
    startToCloseTimeout: '10s',
    retry: { maximumAttempts: 3 },
    summary: 'what this job needs from its worker',
  });
  let problems: ValidationIssue[];
  try {
    const answer = await rtgCheckJobNeeds(needs);
    if (answer.ok) return { notify: answer.notify };
    problems = answer.problems;
  } catch (err) {
    if (isCancellation(err)) throw err;
    // A worker whose activities lack the check (built before it existed) cannot vouch for the job either.
    const why = err instanceof ActivityFailure && err.cause ? err.cause.message : String(err);
    problems = asked.map((need) => ({ field: NEED_FIELDS[need], rule: `cannot be checked by this worker (${why})` }));
  }
  throw invalidRunInput(formatIssues(problems), problems);
}
