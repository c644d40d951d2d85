// The review stage: every URL reviewed, grouped by type in batches of at most 50, in parallel; each
// batch submitted once (never blindly resubmitted), waited for by callback or polling; continue only when
// every item passed.
import {
  isFinalReviewStatus,
  pollActivityId,
  reviewRejected,
  reviewTimedOut,
  type RejectedItem,
  type ReviewSubmitInput,
  type ReviewTaskSummary,
} from '../contract/index.js';
import type { ApprovedAsset } from './definitions.js';
import type { ReviewBatch, ReviewThenGenerateJob } from './input.js';
import { confirmReviewTask } from './review-confirm.js';
import type { RunState } from './run-state.js';
import { waitForFinal, WaitTimedOut } from './signal-or-poll.js';
import { submitOnce, submitSyncOnce, type BatchContext } from './review-submit.js';
import { ReviewItemsRejected, verdict } from './review-verdict.js';

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
  const ctx: BatchContext = { job, run, batch, index, summary, deadline };
  run.planReviewTask(index, batch);

  if (review.mode === 'sync') {
    const answer = await submitSyncOnce(ctx, common);
    run.setReviewTask(index, answer.taskId ?? `sync-${index}`);
    run.observeReview(index, answer);
    // An unfinished answer that names its task is followed like an async one (no callback was sent).
    if (isFinalReviewStatus(answer.status) || !answer.taskId) return verdict(answer, batch);
    run.recordQuery(`review:${answer.taskId}`, answer.nextQueryAt, answer.retryAfterMs);
    return verdict(await waitForReview(ctx, answer.taskId, false), batch);
  }

  const accepted = await submitOnce(ctx, { ...common, resubmitOnAmbiguity: job.resubmitOnAmbiguity });
  const taskId = accepted.taskId;
  run.setReviewTask(index, taskId, accepted.status);
  if (accepted.confirmed) {
    // Adopted after an ambiguous submit: its callback was already answered by the confirming query.
    run.observeReview(index, accepted.confirmed);
    run.takeReviewCallback(taskId);
    if (isFinalReviewStatus(accepted.confirmed.status)) return verdict(accepted.confirmed, batch);
  }
  return verdict(await waitForReview(ctx, taskId, job.callbacks && accepted.callbackSent), batch);
}

/** Waits for the review task by callback (when one can come and the job wants it) or by polling. */
async function waitForReview(
  { job, run, index, deadline }: BatchContext,
  taskId: string,
  callbacksOn: boolean,
): Promise<ReviewTaskSummary> {
  const t = job.timing;
  const key = `review:${taskId}`;
  const query = { taskId, minIntervalMs: t.reviewMinQueryIntervalMs };
  try {
    return await waitForFinal<ReviewTaskSummary>({
      callbacksOn,
      intervalMs: t.reviewMinQueryIntervalMs,
      fallbackMs: Math.max(t.callbackFallbackPollMs, t.reviewMinQueryIntervalMs),
      deadline,
      callbackPending: () => run.reviewCallbackPending(taskId),
      takeCallback: () => run.takeReviewCallback(taskId),
      confirm: () => confirmReviewTask(run, taskId, t.reviewMinQueryIntervalMs, `confirm review task ${taskId}`),
      poll: (cadenceMs, scheduleToCloseMs, fallback) =>
        run.queryInTurn(key, (pacing) =>
          run.acts
            .polling(
              scheduleToCloseMs,
              `poll review task ${taskId}`,
              fallback ? undefined : pollActivityId('review', taskId),
            )
            .rtgQueryReviewTask({ ...query, cadenceMs, untilFinal: true, ...pacing }),
        ),
      isFinal: (r) => isFinalReviewStatus(r.status),
      onObserved: (r) => {
        run.recordQuery(key, r.nextQueryAt, r.retryAfterMs);
        run.observeReview(index, r);
      },
      onRetryAfter: (r) => run.recordQuery(key, r.nextQueryAt, r.retryAfterMs),
      onQueryWithoutAnswer: (err) => run.recordQueryWithoutAnswer(key, t.reviewMinQueryIntervalMs, err),
    });
  } catch (err) {
    if (err instanceof WaitTimedOut) {
      throw reviewTimedOut(taskId, t.reviewTimeoutMs);
    }
    throw err;
  }
}
