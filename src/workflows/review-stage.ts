// The review stage, and the whole life of each of its batches. Every URL is reviewed, grouped by type in
// batches of at most 50, in parallel; the run continues only when every item passed. One batch: its place
// in the review service's quota, one submit at most (async, or sync; never blindly resubmitted: an
// ambiguous one is adopted only when a callback names a task holding exactly its URLs), its task waited
// for by its RemoteTask (callback or polling, task-waiter.ts), and the verdict on the task's items.
import { condition } from '@temporalio/workflow';
import {
  isFinalReviewStatus,
  reviewCancelled,
  reviewFailed,
  reviewRejected,
  reviewTimedOut,
  WORKING_REVIEW_STATUSES,
  type RejectedItem,
  type ReviewSubmitInput,
  type ReviewTaskSummary,
} from '../contract/index.js';
import type { ApprovedAsset } from '../job/definitions.js';
import type { ReviewBatch, ReviewThenGenerateJob } from '../job/input.js';
import { QuotaTicket, releaseQuotaSlots } from './admission/job-slot.js';
import { unconfirmedFailure, type Ambiguity } from './ambiguity.js';
import { isAnswerLost, isFinalFailure, retryAfterRaisedOf } from './failure-reading.js';
import { ANSWER_LOST, RemoteTask, type RemoteTaskRules } from './remote-task.js';
import type { RunState } from './run-state.js';
import { submitAtMostOnce } from './submit-once.js';
import { queryOnce, waitUntilFinal } from './task-waiter.js';

// ---- The stage: every batch at once ------------------------------------------------------------------

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

// ---- One batch, from its quota slot to its verdict ---------------------------------------------------

/** One batch of one run, as the review stage works on it. */
interface BatchContext {
  job: ReviewThenGenerateJob;
  run: RunState;
  batch: ReviewBatch;
  index: number;
  summary: string;
  /** When the batch's review times out: its time-out starts when the quota admitted its submit. */
  deadline: number;
  /** The batch's task: told of every submit's outcome. */
  task: RemoteTask;
  /** The batch's place in the review service's quota (REVIEW_MAX_TASKS_IN_FLIGHT...). */
  quota: QuotaTicket;
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
      slot: run.quotaSlots.handOff(`review batch ${index}`),
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

// ---- The batch's submit, at most once ---------------------------------------------------------------
// Spec: "not resubmitted blindly; confirm first whether a task_id was obtained": the async submit, the sync
// one, and the search for the task that an ambiguous submit may have made (a review callback naming a task
// no batch has claimed, confirmed by one query).

/** The parts of the submit every review batch shares: its task, quota, time-out and SubmitUnconfirmed. */
function batchSubmit(ctx: BatchContext) {
  const { job, run, batch, task, quota, deadline } = ctx;
  return {
    job,
    run,
    kind: 'review' as const,
    task,
    quota,
    timeoutMs: job.timing.reviewTimeoutMs,
    deadline,
    unconfirmed: (ambiguity: Ambiguity, count: number) => (why: string) =>
      unconfirmedFailure(
        `the review submit of ${batch.urls.length} ${batch.assetType.toLowerCase()}(s) (${batch.urls.join(', ')})`,
        'the asset review service',
        ambiguity,
        why,
        { stage: 'reviewing', assetType: batch.assetType, urls: batch.urls, submits: count },
      ),
  };
}

/**
 * Submits the batch for review once. An ambiguous answer (500, time-out, reset: a review task may exist)
 * is not resubmitted blindly (spec: "duplicate submit after a time-out" fails). When the submit carried a
 * callback address, the review service calls back when the review is done: the run waits for a callback
 * naming a task that no batch has claimed, confirms with one query that it is this batch's, and adopts
 * it. What happens when none comes is ambiguity.ts's policy.
 */
async function submitOnce(
  ctx: BatchContext,
  input: ReviewSubmitInput,
): Promise<{ taskId: string; status: string; callbackSent: boolean; confirmed?: ReviewTaskSummary }> {
  const { run, task } = ctx;
  const outcome = await submitAtMostOnce({
    ...batchSubmit(ctx),
    label: 'review submit',
    send: (admission, stageDeadline) =>
      run.acts.submitting.rtgSubmitReview.executeWithOptions({ summary: ctx.summary }, [
        { ...input, stageDeadline, admission },
      ]),
    find: (until) => findSubmittedTask(ctx, until),
  });
  ctx.deadline = outcome.deadline;
  if ('sent' in outcome) {
    const { taskId, callbackSent } = outcome.sent;
    task.apply({ type: 'submitted', taskId, at: Date.now(), callbackSent });
    return outcome.sent;
  }
  const { taskId, task: read } = outcome.adopted;
  const { status, retryAfterMs } = read;
  task.apply({
    type: 'adopted',
    taskId,
    status,
    at: Date.now(),
    ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
  });
  return { taskId, status, callbackSent: true, confirmed: read };
}

/**
 * The sync submit, at most once: it blocks until the review ends, so its HTTP deadline is the review's
 * time-out, and an ambiguous answer (no callback can name its task) is SubmitUnconfirmed unless the job
 * opted in to resubmitting.
 */
async function submitSyncOnce(ctx: BatchContext, input: ReviewSubmitInput): Promise<ReviewTaskSummary> {
  const outcome = await submitAtMostOnce<ReviewTaskSummary, ReviewTaskSummary>({
    ...batchSubmit(ctx),
    label: 'sync review submit',
    send: (admission, stageDeadline) => {
      // The activity's attempt outlives the HTTP deadline a little, so the client's own time-out reports it.
      const timeoutMs = Math.max(stageDeadline - Date.now(), 1_000);
      return ctx.run.acts
        .submittingSync(timeoutMs + 5_000)
        .rtgSubmitReviewSync.executeWithOptions({ summary: `${ctx.summary} (sync)` }, [
          { ...input, stageDeadline, admission, timeoutMs },
        ]);
    },
    // No callback address goes with a sync submit: nothing can name the task of an ambiguous one.
    find: async () => undefined,
  });
  ctx.deadline = outcome.deadline;
  return 'sent' in outcome ? outcome.sent : outcome.adopted;
}

/**
 * Waits until `until` for review callbacks naming tasks no batch has claimed, and reads each: in a run
 * with one batch any such task is its own; otherwise its items must be exactly this batch's URLs. A task
 * is read once for all batches (named-review-tasks.ts); a read that fails is tried again, paced by
 * the task's own RemoteTask, until the wait ends.
 */
async function findSubmittedTask(
  { job, run, batch }: BatchContext,
  until: number,
): Promise<{ taskId: string; task: ReviewTaskSummary } | undefined> {
  const notOurs = new Set<string>();
  // A task whose read lost its answer waits for its own callback before it may be read again.
  const candidates = () =>
    run.unclaimedReviewTaskIds().filter((id) => !notOurs.has(id) && run.namedReviewTasks.mayRead(id));
  for (;;) {
    if (candidates().length === 0) {
      const left = until - Date.now();
      if (left <= 0 || !(await condition(() => candidates().length > 0, left))) return undefined;
    }
    for (const taskId of candidates()) {
      // Claimed by its own batch meanwhile: not this batch's to look at.
      if (!run.unclaimedReviewTaskIds().includes(taskId)) continue;
      const task = await readTask(job, run, taskId);
      if (task === 'unreadable') {
        notOurs.add(taskId);
        continue;
      }
      if (!task) {
        if (Date.now() >= until) return undefined;
        continue;
      }
      if (job.reviewBatches.length === 1 || holdsExactly(task, batch.urls)) return { taskId, task };
      notOurs.add(taskId);
    }
  }
}

/**
 * One query of a task a callback named, paced by that task's RemoteTask (named-review-tasks.ts):
 * undefined when it could not be read this time, 'unreadable' when the service refused it for good (e.g.
 * 404). A lost answer (it may have been `cancelled`) is the RemoteTask's to judge: read again once the
 * task's callback has reported another final state, never when it reported `cancelled`.
 */
function readTask(job: ReviewThenGenerateJob, run: RunState, taskId: string) {
  const minIntervalMs = job.timing.reviewMinQueryIntervalMs;
  const newTask = () => new RemoteTask(reviewTaskRules(job));
  return run.namedReviewTasks.read(taskId, newTask, async (task) => {
    const result = await queryOnce<ReviewTaskSummary>(
      task,
      { statusOf: (r) => r.status, retryAfterOf: (r) => r.retryAfterMs, observe: () => undefined },
      (pacing) =>
        run.acts.confirming.rtgQueryReviewTask.executeWithOptions(
          { summary: `look at review task ${taskId} (named by a callback)` },
          [{ taskId, minIntervalMs, untilFinal: false, guardLostAnswer: true, ...pacing }],
        ),
    );
    if ('answer' in result) return result.answer;
    const err = result.failed;
    if (isAnswerLost(err)) return task.next().step === 'done' ? 'unreadable' : undefined;
    return isFinalFailure(err) && !retryAfterRaisedOf(err) ? 'unreadable' : undefined;
  });
}

// ---- The verdict on the batch's finished task -------------------------------------------------------
// Spec: continue only if the task is completed and the chosen item has submit_review_status 1; asset
// addresses only from result.items[], as Asset:// URLs. Pure.

/** Items of a batch that did not pass: collected across batches into one ReviewRejected. */
export class ReviewItemsRejected extends Error {
  constructor(readonly items: RejectedItem[]) {
    super('review items rejected');
  }
}

/** True when the task holds exactly these source URLs (how an adopted task is matched to its batch). */
export function holdsExactly(task: ReviewTaskSummary, urls: string[]): boolean {
  const sources = new Set(task.items.map((i) => i.sourceUrl));
  const wanted = new Set(urls);
  return sources.size === wanted.size && [...wanted].every((u) => sources.has(u));
}

/** Continue only when the task is completed and every URL of the batch has submit_review_status 1. */
export function verdict(task: ReviewTaskSummary, batch: ReviewBatch): ApprovedAsset[] {
  const reviewTaskId = task.taskId ?? '';
  const evidence = { reviewTaskId, error: task.error, record: task.raw };
  if (task.status === 'cancelled') throw reviewCancelled(evidence);
  if (task.status !== 'completed') {
    throw reviewFailed(
      `review task ${reviewTaskId} ended ${task.rawStatus ?? task.status}${task.error?.message ? `: ${task.error.message}` : ''}`,
      evidence,
    );
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
        error_message: item
          ? (item.errorMessage ?? (item.passed ? 'approved item carries no Asset:// asset_url' : 'not passed'))
          : 'no review result for this URL',
      });
    }
  }
  if (rejected.length > 0) throw new ReviewItemsRejected(rejected);
  return approved;
}

// ---- The spec's rules for a review task -------------------------------------------------------------
// Limits, and States: stop querying once `cancelled` is returned. Read by every RemoteTask of a review
// task: a batch's, and one a callback named before a batch claimed it.

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
