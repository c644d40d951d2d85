// The review stage: every URL reviewed, grouped by type in batches of at most 50, in parallel; each
// batch submitted once (never blindly resubmitted), waited for by callback or polling; continue only when
// every item passed.
import { ApplicationFailure, condition } from '@temporalio/workflow';
import type { ReviewSubmitInput, ReviewTaskSummary } from '../activities/index.js';
import { FailureType } from '../failure-types.js';
import { causeMessage, isAmbiguousSubmit, MAX_AMBIGUOUS_SUBMITS } from './ambiguity.js';
import type { ApprovedAsset } from './definitions.js';
import type { ReviewBatch, ReviewThenGenerateJob } from './input.js';
import type { RunState } from './run-state.js';
import { waitForFinal, WaitTimedOut } from './signal-or-poll.js';
import { reportStage } from './visibility.js';

const FINAL_REVIEW_STATES = new Set(['completed', 'failed', 'cancelled']);

export async function reviewAll(job: ReviewThenGenerateJob, run: RunState, workflowId: string): Promise<ApprovedAsset[]> {
  if (!job.review || job.reviewBatches.length === 0) return [];
  const outcomes = await Promise.allSettled(job.reviewBatches.map((batch, i) => reviewBatch(job, run, workflowId, batch, i)));
  const rejectedItems: Array<{ url: string; error_code?: string; error_message?: string; reviewTaskId: string }> = [];
  for (const o of outcomes) {
    if (o.status === 'rejected') {
      const err: unknown = o.reason;
      if (err instanceof ReviewItemsRejected) rejectedItems.push(...err.items);
      else throw err;
    }
  }
  if (rejectedItems.length > 0) {
    throw ApplicationFailure.create({
      type: FailureType.ReviewRejected,
      message: `review rejected ${rejectedItems.length} item(s): ${rejectedItems.map((r) => `${r.url} (${r.error_code ?? 'no code'}: ${r.error_message ?? 'no message'})`).join('; ')}`,
      nonRetryable: true,
      details: [{ items: rejectedItems }],
    });
  }
  return outcomes.flatMap((o) => (o.status === 'fulfilled' ? o.value : []));
}

class ReviewItemsRejected extends Error {
  constructor(readonly items: Array<{ url: string; error_code?: string; error_message?: string; reviewTaskId: string }>) {
    super('review items rejected');
  }
}

async function reviewBatch(job: ReviewThenGenerateJob, run: RunState, workflowId: string, batch: ReviewBatch, index: number): Promise<ApprovedAsset[]> {
  const review = job.review!;
  const t = job.timing;
  const deadline = Date.now() + t.reviewTimeoutMs;
  const common = { workflowId, assetType: batch.assetType, urls: batch.urls, ...(review.groupId ? { groupId: review.groupId } : {}), ...(review.groupSource !== undefined ? { groupSource: review.groupSource } : {}) };
  const summary = `review ${batch.urls.length} ${batch.assetType.toLowerCase()}(s)`;
  run.progress.review.tasks[index] = { taskId: '', assetType: batch.assetType, urls: batch.urls.length, status: 'submitting' };

  let final: ReviewTaskSummary;
  if (review.mode === 'sync') {
    final = await run.acts.submitting.rtgSubmitReviewSync.executeWithOptions({ summary: `${summary} (sync)` }, [common]);
    run.progress.review.tasks[index]!.taskId = final.taskId ?? `sync-${index}`;
    run.observeReview(index, final);
  } else {
    const accepted = await submitOnce(job, run, batch, { ...common, callbacks: job.callbacks }, summary);
    const taskId = accepted.taskId;
    run.progress.review.tasks[index]!.taskId = taskId;
    run.progress.review.tasks[index]!.status = accepted.status;
    reportStage(job, run.progress);
    if (accepted.confirmed) {
      // Adopted after an ambiguous submit: its callback was already answered by the confirming query.
      run.observeReview(index, accepted.confirmed);
      run.takeReviewCallback(taskId);
    }
    try {
      final = accepted.confirmed && FINAL_REVIEW_STATES.has(accepted.confirmed.status) ? accepted.confirmed : await waitForFinal<ReviewTaskSummary>({
        callbacksOn: job.callbacks,
        intervalMs: t.reviewMinQueryIntervalMs,
        fallbackMs: Math.max(t.callbackFallbackPollMs, t.reviewMinQueryIntervalMs),
        deadline,
        callbackPending: () => run.reviewCallbackPending(taskId),
        takeCallback: () => run.takeReviewCallback(taskId),
        confirm: () =>
          run.acts.confirming.rtgQueryReviewTask.executeWithOptions({ summary: `confirm review task ${taskId}` }, [
            { taskId, minIntervalMs: t.reviewMinQueryIntervalMs, untilFinal: false },
          ]),
        poll: (cadenceMs, scheduleToCloseMs) =>
          run.acts.polling(scheduleToCloseMs, `poll review task ${taskId}`).rtgQueryReviewTask({ taskId, minIntervalMs: t.reviewMinQueryIntervalMs, cadenceMs, untilFinal: true }),
        isFinal: (r) => FINAL_REVIEW_STATES.has(r.status),
        onObserved: (r) => run.observeReview(index, r),
      });
    } catch (err) {
      if (err instanceof WaitTimedOut) {
        throw ApplicationFailure.create({
          type: FailureType.ReviewTimedOut,
          message: `review task ${taskId} not final after ${t.reviewTimeoutMs} ms`,
          nonRetryable: true,
          details: [{ reviewTaskId: taskId }],
        });
      }
      throw err;
    }
  }
  return verdict(final, batch);
}

/**
 * Submits the batch for review once. An ambiguous answer (500, time-out, reset: a review task may exist)
 * is not resubmitted blindly (spec: "duplicate submit after a time-out" fails). With callbacks on, the run
 * waits up to `createAmbiguityGraceMs` for a review callback naming a task that no batch has claimed,
 * confirms with one query that it is this batch's, and adopts it; it resubmits only when none came. With
 * callbacks off nothing can name the task: it resubmits, as the spec allows when no id was obtained.
 */
async function submitOnce(
  job: ReviewThenGenerateJob,
  run: RunState,
  batch: ReviewBatch,
  input: ReviewSubmitInput,
  summary: string,
): Promise<{ taskId: string; status: string; confirmed?: ReviewTaskSummary }> {
  for (let ambiguous = 0; ; ) {
    try {
      return await run.acts.submitting.rtgSubmitReview.executeWithOptions({ summary }, [input]);
    } catch (err) {
      if (!isAmbiguousSubmit(err)) throw err;
      ambiguous++;
      run.progress.lastError = `review submit ambiguous (${ambiguous}): ${causeMessage(err)}`;
      if (job.callbacks) {
        const found = await findSubmittedTask(job, run, batch);
        if (found) return { taskId: found.taskId, status: found.task.status, confirmed: found.task };
      }
      if (ambiguous >= MAX_AMBIGUOUS_SUBMITS) {
        throw ApplicationFailure.create({
          type: FailureType.ReviewFailed,
          message: `review submit of ${batch.urls.length} ${batch.assetType.toLowerCase()}(s) stayed ambiguous ${ambiguous} times (no answer and no callback naming a task); not resubmitted again`,
          nonRetryable: true,
          details: [{ lastError: causeMessage(err), urls: batch.urls }],
        });
      }
    }
  }
}

/**
 * Waits up to the grace for review callbacks naming tasks no batch has claimed, and queries each once:
 * in a run with one batch any such task is its own; otherwise its items must be exactly this batch's URLs.
 */
async function findSubmittedTask(job: ReviewThenGenerateJob, run: RunState, batch: ReviewBatch): Promise<{ taskId: string; task: ReviewTaskSummary } | undefined> {
  const until = Date.now() + job.timing.createAmbiguityGraceMs;
  const looked = new Set<string>();
  const unseen = () => run.unclaimedReviewTaskIds().filter((id) => !looked.has(id));
  for (;;) {
    if (unseen().length === 0) {
      const left = until - Date.now();
      if (left <= 0 || !(await condition(() => unseen().length > 0, left))) return undefined;
    }
    for (const taskId of unseen()) {
      looked.add(taskId);
      let task: ReviewTaskSummary;
      try {
        task = await run.acts.confirming.rtgQueryReviewTask.executeWithOptions({ summary: `look at review task ${taskId} (named by a callback)` }, [
          { taskId, minIntervalMs: job.timing.reviewMinQueryIntervalMs, untilFinal: false },
        ]);
      } catch {
        continue; // unreadable: not adopted; the grace goes on
      }
      if (job.reviewBatches.length === 1 || holdsExactly(task, batch.urls)) return { taskId, task };
    }
  }
}

function holdsExactly(task: ReviewTaskSummary, urls: string[]): boolean {
  const sources = new Set(task.items.map((i) => i.sourceUrl));
  const wanted = new Set(urls);
  return sources.size === wanted.size && [...wanted].every((u) => sources.has(u));
}

/** Continue only when the task is completed and every URL of the batch has submit_review_status 1. */
function verdict(task: ReviewTaskSummary, batch: ReviewBatch): ApprovedAsset[] {
  const reviewTaskId = task.taskId ?? '';
  if (task.status === 'cancelled') {
    throw ApplicationFailure.create({ type: FailureType.ReviewCancelled, message: `review task ${reviewTaskId} was cancelled by the review service; not resubmitted`, nonRetryable: true, details: [{ reviewTaskId, error: task.error, record: task.raw }] });
  }
  if (task.status !== 'completed') {
    throw ApplicationFailure.create({ type: FailureType.ReviewFailed, message: `review task ${reviewTaskId} ended ${task.rawStatus ?? task.status}${task.error?.message ? `: ${task.error.message}` : ''}`, nonRetryable: true, details: [{ reviewTaskId, error: task.error, record: task.raw }] });
  }
  const approved: ApprovedAsset[] = [];
  const rejected: ReviewItemsRejected['items'] = [];
  for (const url of batch.urls) {
    const item = task.items.find((i) => i.sourceUrl === url);
    if (item?.passed && item.assetUrl?.startsWith('Asset://')) {
      approved.push({ sourceUrl: url, assetUrl: item.assetUrl, assetId: item.assetId });
    } else {
      rejected.push({
        url,
        reviewTaskId,
        ...(item?.errorCode !== undefined ? { error_code: item.errorCode } : {}),
        error_message: item ? (item.errorMessage ?? (item.passed ? 'approved item carries no Asset:// asset_url' : 'not passed')) : 'no review result for this URL',
      });
    }
  }
  if (rejected.length > 0) throw new ReviewItemsRejected(rejected);
  return approved;
}
