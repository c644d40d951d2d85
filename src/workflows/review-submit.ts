// Submitting one review batch at most once (spec: "not resubmitted blindly; confirm first whether a
// task_id was obtained"): the async submit, the sync one, and the search for the task that an ambiguous
// submit may have made (a review callback naming a task no batch has claimed, confirmed by one query).
import { condition } from '@temporalio/workflow';
import type { ReviewSubmitInput, ReviewTaskSummary } from '../contract/index.js';
import type { QuotaTicket } from './admission/job-slot.js';
import { unconfirmedFailure, type Ambiguity } from './ambiguity.js';
import { isAnswerLost, isFinalFailure, retryAfterRaisedOf } from './failure-reading.js';
import type { ReviewBatch, ReviewThenGenerateJob } from '../job/input.js';
import { holdsExactly } from './review-verdict.js';
import { RemoteTask } from './remote-task.js';
import { reviewTaskRules } from './review-task-rules.js';
import type { RunState } from './run-state.js';
import { submitAtMostOnce } from './submit-once.js';
import { queryOnce } from './task-waiter.js';

/** One batch of one run, as the review stage works on it. */
export interface BatchContext {
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
export async function submitOnce(
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
export async function submitSyncOnce(ctx: BatchContext, input: ReviewSubmitInput): Promise<ReviewTaskSummary> {
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
  const candidates = () => run.unclaimedReviewTaskIds().filter((id) => !notOurs.has(id));
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
 * 404) or its answer was lost (it may have been `cancelled`: it is not queried again).
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
    return isAnswerLost(err) || (isFinalFailure(err) && !retryAfterRaisedOf(err)) ? 'unreadable' : undefined;
  });
}
