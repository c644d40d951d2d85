// The review stage: every URL reviewed, grouped by type in batches of at most 50, in parallel; each
// batch submitted once (never blindly resubmitted, review-submit.ts), its task waited for by its
// RemoteTask (callback or polling, task-waiter.ts); continue only when every item passed.
import {
  isFinalReviewStatus,
  reviewRejected,
  reviewTimedOut,
  WORKING_REVIEW_STATUSES,
  type RejectedItem,
  type ReviewSubmitInput,
  type ReviewTaskSummary,
} from '../contract/index.js';
import { QuotaTicket, releaseQuotaSlots } from './admission/job-slot.js';
import type { ApprovedAsset } from './definitions.js';
import type { ReviewBatch, ReviewThenGenerateJob } from './input.js';
import { RemoteTask, type RemoteTaskRules } from './remote-task.js';
import type { RunState } from './run-state.js';
import { submitOnce, submitSyncOnce, type BatchContext } from './review-submit.js';
import { ReviewItemsRejected, verdict } from './review-verdict.js';
import { waitUntilFinal } from './task-waiter.js';

export async function reviewAll(
  job: ReviewThenGenerateJob,
  run: RunState,
  workflowId: string,
): Promise<ApprovedAsset[]> {
  if (!job.review || job.reviewBatches.length === 0) return [];
  const outcomes = await Promise.allSettled(
    job.reviewBatches.map((batch, i) => reviewBatch(job, run, workflowId, batch, i)),
  );
  const rejectedItems: RejectedItem[] = [];
  for (const o of outcomes) {
    if (o.status === 'rejected') {
      const err: unknown = o.reason;
      if (err instanceof ReviewItemsRejected) rejectedItems.push(...err.items);
      else throw err;
    }
  }
  if (rejectedItems.length > 0) {
    throw reviewRejected(rejectedItems);
  }
  return outcomes.flatMap((o) => (o.status === 'fulfilled' ? o.value : []));
}

/** The spec's rules for a review task (Limits; States: stop querying once `cancelled` is returned). */
export function reviewTaskRules(job: ReviewThenGenerateJob): RemoteTaskRules {
  const t = job.timing;
  return {
    minIntervalMs: t.reviewMinQueryIntervalMs,
    pollIntervalMs: t.reviewMinQueryIntervalMs,
    fallbackMs: Math.max(t.callbackFallbackPollMs, t.reviewMinQueryIntervalMs),
    callbacks: job.callbacks && job.review?.mode !== 'sync',
    cancelledStopsQueries: true,
    isFinal: isFinalReviewStatus,
    isWorking: (s) => WORKING_REVIEW_STATUSES.has(s),
  };
}

async function reviewBatch(
  job: ReviewThenGenerateJob,
  run: RunState,
  workflowId: string,
  batch: ReviewBatch,
  index: number,
): Promise<ApprovedAsset[]> {
  const review = job.review!;
  const deadline = Date.now() + job.timing.reviewTimeoutMs;
  const common: ReviewSubmitInput = {
    workflowId,
    assetType: batch.assetType,
    urls: batch.urls,
    ...(review.groupId ? { groupId: review.groupId } : {}),
    ...(review.groupSource !== undefined ? { groupSource: review.groupSource } : {}),
    stageDeadline: deadline,
  };
  const summary = `review ${batch.urls.length} ${batch.assetType.toLowerCase()}(s)`;
  const task = new RemoteTask(reviewTaskRules(job));
  const quota = QuotaTicket.forJob(job, run, `review batch ${index}`);
  const ctx: BatchContext = { job, run, batch, index, summary, deadline, task, quota };
  run.planReviewTask(index, batch, task);
  try {
    return await reviewWithin(ctx, common);
  } finally {
    // The task is final, or the run ends: the review service no longer needs the batch's slot.
    await releaseQuotaSlots(run, `review batch ${index}`);
  }
}

async function reviewWithin(ctx: BatchContext, common: ReviewSubmitInput): Promise<ApprovedAsset[]> {
  const { job, run, batch, index, task } = ctx;
  const review = job.review!;

  if (review.mode === 'sync') {
    const answer = await submitSyncOnce(ctx, common);
    run.setReviewTask(index, answer.taskId ?? `sync-${index}`);
    run.observeReview(index, answer);
    // An unfinished answer that names its task is followed like an async one (no callback was sent).
    if (isFinalReviewStatus(answer.status) || !answer.taskId) return verdict(answer, batch);
    task.apply({ type: 'submitted', taskId: answer.taskId, at: Date.now(), callbackSent: false });
    if (answer.retryAfterMs !== undefined) {
      task.apply({ type: 'querySent' });
      task.apply({ type: 'answered', status: answer.status, at: Date.now(), retryAfterMs: answer.retryAfterMs });
    }
    return verdict(await waitForReview(ctx, answer.taskId, answer), batch);
  }

  const accepted = await submitOnce(ctx, { ...common, resubmitOnAmbiguity: job.resubmitOnAmbiguity });
  run.setReviewTask(index, accepted.taskId, accepted.confirmed?.status ?? accepted.status);
  if (accepted.confirmed) run.observeReview(index, accepted.confirmed);
  return verdict(await waitForReview(ctx, accepted.taskId, accepted.confirmed), batch);
}

/** Waits for the batch's task until final; `last`: the answer the run has already (adoption, sync). */
async function waitForReview(
  { job, run, index, deadline, task }: BatchContext,
  taskId: string,
  last: ReviewTaskSummary | undefined,
): Promise<ReviewTaskSummary> {
  const t = job.timing;
  const query = { taskId, minIntervalMs: t.reviewMinQueryIntervalMs, guardLostAnswer: true };
  const outcome = await waitUntilFinal<ReviewTaskSummary>(
    task,
    {
      confirm: async (pacing) => {
        // A read of this task made while the run did not know it was its own keeps the interval too.
        const readAt = await run.namedReadsDone(taskId);
        const notBefore = Math.max(pacing.notBefore, readAt > 0 ? readAt + t.reviewMinQueryIntervalMs : 0);
        return run.acts.confirming.rtgQueryReviewTask.executeWithOptions({ summary: `confirm review task ${taskId}` }, [
          { ...query, ...pacing, notBefore, untilFinal: false },
        ]);
      },
      poll: (pacing, scheduleToCloseMs) =>
        run.acts
          .polling(scheduleToCloseMs, `poll review task ${taskId}`)
          .rtgQueryReviewTask({ ...query, ...pacing, cadenceMs: t.reviewMinQueryIntervalMs, untilFinal: true }),
      statusOf: (r) => r.status,
      retryAfterOf: (r) => r.retryAfterMs,
      observe: (r) => run.observeReview(index, r),
    },
    deadline,
  );
  if (outcome.status === 'timed out') throw reviewTimedOut(taskId, t.reviewTimeoutMs);
  const answer = outcome.answer ?? last;
  if (answer && answer.status === outcome.status) return answer;
  // The final word was a callback's (`cancelled`: the task is not queried again).
  return cancelledByCallback(taskId);
}

/** The review task as a signed callback reported it cancelled: no query confirms it (spec: stop querying). */
function cancelledByCallback(taskId: string): ReviewTaskSummary {
  const message = 'reported cancelled by the review service callback';
  return {
    taskId,
    status: 'cancelled',
    rawStatus: 'cancelled',
    totalCount: undefined,
    doneCount: undefined,
    items: [],
    error: { message },
    raw: { task_id: taskId, status: 'cancelled', message },
    queries: 0,
  };
}
