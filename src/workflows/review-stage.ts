// The review stage: every URL reviewed, grouped by type in batches of at most 50, in parallel; each
// batch submitted once (never blindly resubmitted), waited for by callback or polling; continue only when
// every item passed.
import { ApplicationFailure, condition } from '@temporalio/workflow';
import type { ReviewSubmitInput, ReviewTaskSummary } from '../activities/index.js';
import { FailureType } from '../model/failure-types.js';
import { afterAmbiguousSubmit, ambiguityOf, submitUnconfirmed, type Ambiguity } from './ambiguity.js';
import type { ApprovedAsset } from './definitions.js';
import type { ReviewBatch, ReviewThenGenerateJob } from './input.js';
import type { RunState } from './run-state.js';
import { retryAfterRaised, waitForFinal, WaitTimedOut } from './signal-or-poll.js';
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
  const deadline = Date.now() + job.timing.reviewTimeoutMs;
  const common: ReviewSubmitInput = {
    workflowId,
    assetType: batch.assetType,
    urls: batch.urls,
    ...(review.groupId ? { groupId: review.groupId } : {}),
    ...(review.groupSource !== undefined ? { groupSource: review.groupSource } : {}),
  };
  const summary = `review ${batch.urls.length} ${batch.assetType.toLowerCase()}(s)`;
  const ctx: BatchContext = { job, run, batch, index, summary, deadline };
  run.progress.review.tasks[index] = { taskId: '', assetType: batch.assetType, urls: batch.urls.length, status: 'submitting' };

  if (review.mode === 'sync') {
    const answer = await submitSyncOnce(ctx, common);
    run.progress.review.tasks[index]!.taskId = answer.taskId ?? `sync-${index}`;
    run.observeReview(index, answer);
    // An unfinished answer that names its task is followed like an async one (no callback was sent).
    if (FINAL_REVIEW_STATES.has(answer.status) || !answer.taskId) return verdict(answer, batch);
    run.recordQuery(`review:${answer.taskId}`, answer.nextQueryAt, answer.retryAfterMs);
    return verdict(await waitForReview(ctx, answer.taskId, false), batch);
  }

  const accepted = await submitOnce(ctx, common);
  const taskId = accepted.taskId;
  run.progress.review.tasks[index]!.taskId = taskId;
  run.progress.review.tasks[index]!.status = accepted.status;
  reportStage(job, run.progress);
  if (accepted.confirmed) {
    // Adopted after an ambiguous submit: its callback was already answered by the confirming query.
    run.observeReview(index, accepted.confirmed);
    run.takeReviewCallback(taskId);
    if (FINAL_REVIEW_STATES.has(accepted.confirmed.status)) return verdict(accepted.confirmed, batch);
  }
  return verdict(await waitForReview(ctx, taskId, job.callbacks && accepted.callbackSent), batch);
}

interface BatchContext {
  job: ReviewThenGenerateJob;
  run: RunState;
  batch: ReviewBatch;
  index: number;
  summary: string;
  deadline: number;
}

/** Waits for the review task by callback (when one can come and the job wants it) or by polling. */
async function waitForReview({ job, run, index, deadline }: BatchContext, taskId: string, callbacksOn: boolean): Promise<ReviewTaskSummary> {
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
      confirm: () =>
        run.acts.confirming.rtgQueryReviewTask.executeWithOptions({ summary: `confirm review task ${taskId}` }, [{ ...query, untilFinal: false, ...run.queryPacing(key) }]),
      poll: (cadenceMs, scheduleToCloseMs) =>
        run.acts.polling(scheduleToCloseMs, `poll review task ${taskId}`).rtgQueryReviewTask({ ...query, cadenceMs, untilFinal: true, ...run.queryPacing(key) }),
      isFinal: (r) => FINAL_REVIEW_STATES.has(r.status),
      onObserved: (r) => {
        run.recordQuery(key, r.nextQueryAt, r.retryAfterMs);
        run.observeReview(index, r);
      },
      onRetryAfter: (r) => run.recordQuery(key, r.nextQueryAt, r.retryAfterMs),
      onQueryWithoutAnswer: () => run.recordQueryWithoutAnswer(key, t.reviewMinQueryIntervalMs),
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

function unconfirmed(ctx: BatchContext, ambiguity: Ambiguity, count: number) {
  const { batch } = ctx;
  return (why: string) =>
    submitUnconfirmed(`the review submit of ${batch.urls.length} ${batch.assetType.toLowerCase()}(s) (${batch.urls.join(', ')})`, 'the asset review service', ambiguity, why, {
      stage: 'reviewing',
      assetType: batch.assetType,
      urls: batch.urls,
      submits: count,
    });
}

/**
 * Submits the batch for review once. An ambiguous answer (500, time-out, reset: a review task may exist)
 * is not resubmitted blindly (spec: "duplicate submit after a time-out" fails). When the submit carried a
 * callback address, the review service calls back when the review is done: the run waits for a callback
 * naming a task that no batch has claimed, confirms with one query that it is this batch's, and adopts
 * it. What happens when none comes is ambiguity.ts's policy.
 */
async function submitOnce(ctx: BatchContext, input: ReviewSubmitInput): Promise<{ taskId: string; status: string; callbackSent: boolean; confirmed?: ReviewTaskSummary }> {
  const { job, run } = ctx;
  for (let ambiguous = 1; ; ambiguous++) {
    try {
      return await run.acts.submitting.rtgSubmitReview.executeWithOptions({ summary: ctx.summary }, [input]);
    } catch (err) {
      const ambiguity = ambiguityOf(err);
      if (!ambiguity) throw err;
      run.progress.lastError = `review submit ambiguous (${ambiguous}): ${ambiguity.message}`;
      const next = await afterAmbiguousSubmit({
        ambiguity,
        count: ambiguous,
        resubmitOnAmbiguity: job.resubmitOnAmbiguity,
        graceMs: job.timing.createAmbiguityGraceMs,
        deadline: ctx.deadline,
        find: (until) => findSubmittedTask(ctx, until),
        unconfirmed: unconfirmed(ctx, ambiguity, ambiguous),
      });
      if (next !== 'resubmit') return { taskId: next.adopted.taskId, status: next.adopted.task.status, callbackSent: true, confirmed: next.adopted.task };
    }
  }
}

/**
 * The sync submit, at most once: it blocks until the review ends, so its HTTP deadline is the review's
 * time-out, and an ambiguous answer (no callback can name its task) is SubmitUnconfirmed unless the job
 * opted in to resubmitting.
 */
async function submitSyncOnce(ctx: BatchContext, input: ReviewSubmitInput): Promise<ReviewTaskSummary> {
  const { job, run } = ctx;
  for (let ambiguous = 1; ; ambiguous++) {
    const timeoutMs = Math.max(ctx.deadline - Date.now(), 1_000);
    try {
      // The activity's attempt outlives the HTTP deadline a little, so the client's own time-out reports it.
      return await run.acts.submittingSync(timeoutMs + 5_000).rtgSubmitReviewSync.executeWithOptions({ summary: `${ctx.summary} (sync)` }, [
        { ...input, timeoutMs, minIntervalMs: job.timing.reviewMinQueryIntervalMs },
      ]);
    } catch (err) {
      const ambiguity = ambiguityOf(err);
      if (!ambiguity) throw err;
      run.progress.lastError = `sync review submit ambiguous (${ambiguous}): ${ambiguity.message}`;
      await afterAmbiguousSubmit({
        ambiguity,
        count: ambiguous,
        resubmitOnAmbiguity: job.resubmitOnAmbiguity,
        graceMs: 0,
        deadline: ctx.deadline,
        find: async () => undefined,
        unconfirmed: unconfirmed(ctx, ambiguity, ambiguous),
      });
    }
  }
}

/**
 * Waits until `until` for review callbacks naming tasks no batch has claimed, and queries each once: in
 * a run with one batch any such task is its own; otherwise its items must be exactly this batch's URLs.
 */
async function findSubmittedTask({ job, run, batch }: BatchContext, until: number): Promise<{ taskId: string; task: ReviewTaskSummary } | undefined> {
  const looked = new Set<string>();
  const unseen = () => run.unclaimedReviewTaskIds().filter((id) => !looked.has(id));
  for (;;) {
    if (unseen().length === 0) {
      const left = until - Date.now();
      if (left <= 0 || !(await condition(() => unseen().length > 0, left))) return undefined;
    }
    for (const taskId of unseen()) {
      looked.add(taskId);
      const key = `review:${taskId}`;
      let task: ReviewTaskSummary;
      try {
        task = await run.acts.confirming.rtgQueryReviewTask.executeWithOptions({ summary: `look at review task ${taskId} (named by a callback)` }, [
          { taskId, minIntervalMs: job.timing.reviewMinQueryIntervalMs, untilFinal: false, ...run.queryPacing(key) },
        ]);
      } catch (err) {
        const raised = retryAfterRaised(err);
        if (raised) run.recordQuery(key, raised.nextQueryAt, raised.retryAfterMs);
        else run.recordQueryWithoutAnswer(key, job.timing.reviewMinQueryIntervalMs);
        continue; // unreadable: not adopted; the wait goes on
      }
      run.recordQuery(key, task.nextQueryAt, task.retryAfterMs);
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
