// Mutable state of one ReviewThenGenerate run: progress (for the `progress` query and the Web UI), the
// callbacks received, and the run's activity proxies (their time-outs come from the run's timing).
import { proxyActivities, type ActivityOptions } from '@temporalio/workflow';
import type { Activities, ReviewTaskSummary, VideoTaskSummary } from '../activities/index.js';
import type { CallbackSignal, Progress, Stage } from './definitions.js';
import type { ReviewThenGenerateJob, Timing } from './input.js';
import { CONFIRM_RETRY, POLL_RETRY, SUBMIT_RETRY } from './retry-policies.js';
import { reportStage } from './visibility.js';

export const FINAL_VIDEO_STATES = new Set(['succeeded', 'failed', 'cancelled', 'expired']);

/** Activity proxies for one run; the per-attempt time-out comes from the run's timing. */
export function activitiesFor(timing: Timing) {
  const startToCloseTimeout = timing.callTimeoutMs;
  const submitting = proxyActivities<Activities>({
    startToCloseTimeout,
    retry: SUBMIT_RETRY,
  });
  const polling = (scheduleToCloseMs: number, summary: string) => {
    const options: ActivityOptions = {
      startToCloseTimeout,
      scheduleToCloseTimeout: scheduleToCloseMs,
      summary,
      retry: POLL_RETRY,
    };
    return proxyActivities<Activities>(options);
  };
  const confirming = proxyActivities<Activities>({
    startToCloseTimeout,
    retry: CONFIRM_RETRY,
  });
  return { submitting, polling, confirming };
}

export type RunActivities = ReturnType<typeof activitiesFor>;

/** Mutable state of one run: progress (for the `progress` query) and the callbacks received. */
export class RunState {
  readonly progress: Progress;
  readonly acts: RunActivities;
  private pendingReviewCallbacks = new Set<string>();
  private anonymousReviewCallback = false;
  /** Every review task id named by a (signed) review callback of this run, in arrival order. */
  private readonly namedReviewTaskIds: string[] = [];
  private pendingVideoCallback = false;
  /** Task ids named by video callbacks, in arrival order (used to resolve an ambiguous create). */
  readonly videoCallbackTaskIds: string[] = [];
  /** Every task id named by a (signed) video callback of this run. */
  private readonly namedVideoTaskIds = new Set<string>();

  constructor(private readonly job: ReviewThenGenerateJob) {
    this.acts = activitiesFor(job.timing);
    this.progress = {
      stage: 'reviewing',
      review: { tasks: [], batchesPlanned: job.reviewBatches.length },
      queries: { review: 0, video: 0 },
      callbacks: { review: 0, video: 0, ignored: 0 },
    };
  }

  setStage(stage: Stage) {
    this.progress.stage = stage;
    reportStage(this.job, this.progress);
  }

  setTaskId(taskId: string) {
    this.progress.taskId = taskId;
    reportStage(this.job, this.progress);
  }

  reviewTaskIds() {
    return this.progress.review.tasks.map((t) => t.taskId);
  }

  fail(err: unknown) {
    this.progress.stage = 'failed';
    this.progress.lastError = err instanceof Error ? err.message : String(err);
    reportStage(this.job, this.progress);
  }

  onReviewCallback(s: CallbackSignal) {
    this.progress.callbacks.review++;
    // Kept even when the id is not known yet: a fast review's callback can arrive before the workflow has
    // recorded the submit's answer, and dropping it would leave the task to the slow fallback polling.
    if (s.taskId) this.pendingReviewCallbacks.add(s.taskId);
    else this.anonymousReviewCallback = true; // no usable id: confirm every waiting task
    if (s.taskId && !this.namedReviewTaskIds.includes(s.taskId)) this.namedReviewTaskIds.push(s.taskId);
  }

  /**
   * Review tasks named by callbacks that no batch has as its task yet: callback URLs are signed per run, so
   * each comes from a submit of this run whose answer is not recorded yet or was lost (ambiguous).
   */
  unclaimedReviewTaskIds(): string[] {
    const claimed = new Set(this.reviewTaskIds());
    return this.namedReviewTaskIds.filter((id) => !claimed.has(id));
  }

  reviewCallbackPending(taskId: string) {
    return this.pendingReviewCallbacks.has(taskId) || this.anonymousReviewCallback;
  }

  takeReviewCallback(taskId: string) {
    this.pendingReviewCallbacks.delete(taskId);
    this.anonymousReviewCallback = false;
  }

  orphanTaskIds(): string[] {
    const handled = new Set([this.progress.taskId, ...(this.progress.orphanTasksCancelled ?? [])]);
    return [...this.namedVideoTaskIds].filter((id) => !handled.has(id));
  }

  onVideoCallback(s: CallbackSignal) {
    this.progress.callbacks.video++;
    if (s.taskId) this.namedVideoTaskIds.add(s.taskId);
    const current = this.progress.taskId;
    if (s.taskId && current && s.taskId !== current) {
      this.progress.callbacks.ignored++;
      return;
    }
    if (s.taskId && !current && !this.videoCallbackTaskIds.includes(s.taskId)) this.videoCallbackTaskIds.push(s.taskId);
    // A callback that says the task is still running needs no query; a final or unreadable one does.
    if (!s.status || FINAL_VIDEO_STATES.has(s.status) || !['queued', 'running'].includes(s.status)) this.pendingVideoCallback = true;
  }

  videoCallbackPending() {
    return this.pendingVideoCallback;
  }

  takeVideoCallback() {
    this.pendingVideoCallback = false;
  }

  observeReview(batchIndex: number, t: ReviewTaskSummary) {
    const entry = this.progress.review.tasks[batchIndex];
    if (!entry) return;
    entry.status = t.status === 'unknown' ? (t.rawStatus ?? 'unknown') : t.status;
    if (t.doneCount !== undefined) entry.doneCount = t.doneCount;
    if (t.totalCount !== undefined) entry.totalCount = t.totalCount;
    this.progress.queries.review += t.queries || 1;
  }

  observeVideo(t: VideoTaskSummary) {
    this.progress.state = t.status === 'unknown' ? (t.rawStatus ?? 'unknown') : t.status;
    this.progress.queries.video += t.queries || 1;
  }
}
