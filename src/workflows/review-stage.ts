// The review stage: every URL reviewed, grouped by type in batches of at most 50, in parallel; each
// batch submitted once (never blindly resubmitted, review-submit.ts), its task waited for by its
// RemoteTask (callback or polling, task-waiter.ts); continue only when every item passed.
import {
  isFinalReviewStatus,
  reviewFailed,
  reviewRejected,
  reviewTimedOut,
  type RejectedItem,
  type ReviewSubmitInput,
  type ReviewTaskSummary,
} from '../contract/index.js';
import { QuotaTicket, releaseQuotaSlots } from './admission/job-slot.js';
import type { ApprovedAsset } from '../job/definitions.js';
import type { ReviewBatch, ReviewThenGenerateJob } from '../job/input.js';
import { ANSWER_LOST, RemoteTask } from './remote-task.js';
import { reviewTaskRules } from './review-task-rules.js';
import type { RunState } from './run-state.js';
import { submitOnce, submitSyncOnce, type BatchContext } from './review-submit.js';
import { ReviewItemsRejected, verdict } from './review-verdict.js';
import { waitUntilFinal } from './task-waiter.js';

export { reviewTaskRules } from './review-task-rules.js';

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
  // Reads of this task made while a callback named it and no batch had claimed it keep their pacing.
  const readBefore = await run.namedReviewTasks.pacingOf(taskId);
  if (readBefore) task.apply({ type: 'paced', ...readBefore });
  const query = { taskId, minIntervalMs: t.reviewMinQueryIntervalMs, guardLostAnswer: true };
  const outcome = await waitUntilFinal<ReviewTaskSummary>(
    task,
    {
      confirm: (pacing) =>
        run.acts.confirming.rtgQueryReviewTask.executeWithOptions({ summary: `confirm review task ${taskId}` }, [
          { ...query, ...pacing, untilFinal: false },
        ]),
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
  if (outcome.status === ANSWER_LOST) throw answerLost(taskId, task.callbackSent);
  // Every final word is a query's: a callback's body is a hint, never taken for the task's state.
  const answer = outcome.answer ?? last;
  if (!answer) throw new Error(`review task ${taskId} ended ${outcome.status} without an answer`);
  return answer;
}

/**
 * A query's answer was lost with its worker and may have been `cancelled` (spec: then stop querying), and
 * nothing can tell otherwise: no callback address went out, or the task's callback reported `cancelled`
 * (a body no query may confirm). The run stops without knowing the task's state.
 */
function answerLost(taskId: string, callbackSent: boolean): ReturnType<typeof reviewFailed> {
  const why = callbackSent
    ? 'its callback then reported it cancelled, which no query may confirm'
    : 'no callback address was sent, so nothing else can tell';
  const message =
    `review task ${taskId}: a query's answer was lost with its worker and may have been cancelled, after which the service must not be queried; ${why}. ` +
    'Its state is unknown: check the task in the asset review service before starting the job again';
  return reviewFailed(message, { reviewTaskId: taskId, error: { message }, record: {} });
}
