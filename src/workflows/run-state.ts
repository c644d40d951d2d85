// Mutable state of one ReviewThenGenerate run: progress (for the `progress` query and the Web UI), the
// callbacks received, and the record of when each task may be queried next. Every write to the progress
// goes through a method here; the stages read it.
import { condition } from '@temporalio/workflow';
import { WORKING_VIDEO_STATUSES, type CallbackSignal } from '../contract/index.js';
import type { ReviewTaskSummary, VideoTaskSummary } from '../contract/index.js';
import type { Progress, Stage } from './definitions.js';
import type { ReviewBatch, ReviewThenGenerateJob } from './input.js';
import type { RunActivities } from './run-activities.js';
import { CallbackBurst } from './callback-burst.js';
import { nextQueryAtOf } from './failure-reading.js';
import { INDEXED_STAGES, indexStage, showProgress } from './visibility.js';

/** Mutable state of one run: progress (for the `progress` query) and the callbacks received. */
export class RunState {
  readonly #progress: Progress;
  private pendingReviewCallbacks = new Set<string>();
  private anonymousReviewCallback = false;
  /** Every review task id named by a (signed) review callback of this run, in arrival order. */
  private readonly namedReviewTaskIds: string[] = [];
  private pendingVideoCallback = false;
  /** Task ids named by video callbacks, in arrival order (used to resolve an ambiguous create). */
  readonly videoCallbackTaskIds: string[] = [];
  /** Every task id named by a (signed) video callback of this run. */
  private readonly namedVideoTaskIds = new Set<string>();
  /**
   * When each remote task may be queried next (epoch ms): the run's own record of its last query and any
   * Retry-After, passed to every query activity, so the minimum interval holds across workers.
   */
  private readonly nextQueryAt = new Map<string, number>();
  private readonly knownRetryAfterMs = new Map<string, number>();
  readonly burst = new CallbackBurst();

  #indexedStage: Stage | undefined;
  /** Tasks with a query activity under way: the next query of the same task waits for its answer. */
  readonly #queriesInFlight = new Set<string>();
  /** Reads of review tasks named by callbacks, shared by the batches looking for their task. */
  readonly #namedTaskReads = new Map<string, Promise<ReviewTaskSummary | 'unreadable' | undefined>>();

  /**
   * `show` puts the progress in the Web UI's current details at each change of stage or task; `index`
   * upserts the search attributes once per stage users filter on. Unit tests give no-ops.
   */
  constructor(
    private readonly job: ReviewThenGenerateJob,
    readonly acts: RunActivities,
    private readonly show: (job: ReviewThenGenerateJob, p: Progress) => void = showProgress,
    private readonly index: (job: ReviewThenGenerateJob, p: Progress) => void = indexStage,
  ) {
    this.#progress = {
      stage: 'reviewing',
      review: { tasks: [], batchesPlanned: job.reviewBatches.length },
      queries: { review: 0, video: 0 },
      callbacks: { review: 0, video: 0, ignored: 0 },
    };
  }

  private report() {
    this.show(this.job, this.#progress);
    const stage = this.#progress.stage;
    if (INDEXED_STAGES.has(stage) && stage !== this.#indexedStage) {
      this.#indexedStage = stage;
      this.index(this.job, this.#progress);
    }
  }

  /** What the `progress` query answers; written only through the methods below. */
  get progress(): Readonly<Progress> {
    return this.#progress;
  }

  /** A batch is being submitted: its entry in the progress, before any task id is known. */
  planReviewTask(index: number, batch: ReviewBatch) {
    this.#progress.review.tasks[index] = {
      taskId: '',
      assetType: batch.assetType,
      urls: batch.urls.length,
      status: 'submitting',
    };
  }

  /** A batch's review task is known (accepted, adopted, or named by a sync answer). */
  setReviewTask(index: number, taskId: string, status?: string) {
    const entry = this.#progress.review.tasks[index];
    if (!entry) return;
    entry.taskId = taskId;
    if (status !== undefined) entry.status = status;
    this.report();
  }

  /** The last thing that went wrong, shown in `progress` and the Web UI, even when the run goes on. */
  noteError(message: string) {
    this.#progress.lastError = message;
  }

  /** An orphan of an ambiguous create is being cancelled. */
  noteOrphanCancelled(taskId: string) {
    this.#progress.orphanTasksCancelled = [...(this.#progress.orphanTasksCancelled ?? []), taskId];
  }

  /** Pacing of the next query of a task (keys: `review:<id>`, `video:<id>`), for the query activity. */
  queryPacing(key: string): { notBefore?: number; knownRetryAfterMs: number } {
    const at = this.nextQueryAt.get(key);
    return { ...(at === undefined ? {} : { notBefore: at }), knownRetryAfterMs: this.knownRetryAfterMs.get(key) ?? 0 };
  }

  /**
   * Runs one query activity of a task once no other query of it is under way (two batches, or a look-up
   * and the owner's confirmation, could otherwise get the same pacing slot in one activation), passing it
   * the pacing the run's record gives at that moment.
   */
  async queryInTurn<T>(key: string, send: (pacing: { notBefore?: number; knownRetryAfterMs: number }) => Promise<T>) {
    await condition(() => !this.#queriesInFlight.has(key));
    this.#queriesInFlight.add(key);
    try {
      return await send(this.queryPacing(key));
    } finally {
      this.#queriesInFlight.delete(key);
    }
  }

  queryUnderWay(key: string): boolean {
    return this.#queriesInFlight.has(key);
  }

  /** A query answered: when the task may be queried next, and the Retry-After it asked for, if any. */
  recordQuery(key: string, nextQueryAt: number, retryAfterMs?: number) {
    this.nextQueryAt.set(key, Math.max(this.nextQueryAt.get(key) ?? 0, nextQueryAt));
    if (retryAfterMs !== undefined)
      this.knownRetryAfterMs.set(key, Math.max(this.knownRetryAfterMs.get(key) ?? 0, retryAfterMs));
  }

  /**
   * A query activity ended without an answer (failed, or a poll stopped for a callback). A failed query
   * says when the task may be queried next (`err`, see nextQueryAtOf); otherwise its last query was before
   * now, and no attempt of it was told to wait longer than the known Retry-After (it would have ended to
   * report it).
   */
  recordQueryWithoutAnswer(key: string, minIntervalMs: number, err?: unknown) {
    const fromNow = Date.now() + Math.max(minIntervalMs, this.knownRetryAfterMs.get(key) ?? 0);
    this.recordQuery(key, Math.max(fromNow, nextQueryAtOf(err) ?? 0));
  }

  setStage(stage: Stage) {
    this.#progress.stage = stage;
    this.report();
  }

  setTaskId(taskId: string) {
    this.#progress.taskId = taskId;
    this.report();
  }

  reviewTaskIds() {
    return this.#progress.review.tasks.map((t) => t.taskId);
  }

  fail(err: unknown) {
    this.#progress.stage = 'failed';
    this.#progress.lastError = err instanceof Error ? err.message : String(err);
    this.report();
  }

  onReviewCallback(s: CallbackSignal) {
    this.#progress.callbacks.review++;
    // Kept even when the id is not known yet: a fast review's callback can arrive before the workflow has
    // recorded the submit's answer, and dropping it would leave the task to the slow fallback polling.
    if (s.taskId) this.pendingReviewCallbacks.add(s.taskId);
    else this.anonymousReviewCallback = true; // no usable id: confirm every waiting task
    const spaced = this.burst.add(`review:${s.taskId ?? ''}`, s.status);
    for (const key of spaced) this.recordQuery(key, Date.now() + this.job.timing.reviewMinQueryIntervalMs);
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

  /**
   * Reads a task a callback named once for every batch (two batches answered ambiguously at once would
   * otherwise query it together); a failed read is forgotten, so the next look tries again.
   */
  readNamedReviewTask(taskId: string, read: () => Promise<ReviewTaskSummary | 'unreadable' | undefined>) {
    let reading = this.#namedTaskReads.get(taskId);
    if (!reading) {
      reading = read().then((task) => {
        if (!task) this.#namedTaskReads.delete(taskId);
        return task;
      });
      this.#namedTaskReads.set(taskId, reading);
    }
    return reading;
  }

  reviewCallbackPending(taskId: string) {
    return this.pendingReviewCallbacks.has(taskId) || this.anonymousReviewCallback;
  }

  takeReviewCallback(taskId: string) {
    this.pendingReviewCallbacks.delete(taskId);
    this.anonymousReviewCallback = false;
  }

  orphanTaskIds(): string[] {
    const handled = new Set([this.#progress.taskId, ...(this.#progress.orphanTasksCancelled ?? [])]);
    return [...this.namedVideoTaskIds].filter((id) => !handled.has(id));
  }

  onVideoCallback(s: CallbackSignal) {
    this.#progress.callbacks.video++;
    if (s.taskId) this.namedVideoTaskIds.add(s.taskId);
    const current = this.#progress.taskId;
    if (s.taskId && current && s.taskId !== current) {
      this.#progress.callbacks.ignored++;
      return;
    }
    if (s.taskId && !current && !this.videoCallbackTaskIds.includes(s.taskId)) this.videoCallbackTaskIds.push(s.taskId);
    // A callback that says the task is still running needs no query; a final or unreadable one does.
    if (!s.status || !WORKING_VIDEO_STATUSES.has(s.status)) this.pendingVideoCallback = true;
  }

  videoCallbackPending() {
    return this.pendingVideoCallback;
  }

  takeVideoCallback() {
    this.pendingVideoCallback = false;
  }

  observeReview(batchIndex: number, t: ReviewTaskSummary) {
    const entry = this.#progress.review.tasks[batchIndex];
    if (!entry) return;
    entry.status = t.status === 'unknown' ? (t.rawStatus ?? 'unknown') : t.status;
    if (t.doneCount !== undefined) entry.doneCount = t.doneCount;
    if (t.totalCount !== undefined) entry.totalCount = t.totalCount;
    this.#progress.queries.review += t.queries || 1;
  }

  observeVideo(t: VideoTaskSummary) {
    this.#progress.state = t.status === 'unknown' ? (t.rawStatus ?? 'unknown') : t.status;
    this.#progress.queries.video += t.queries || 1;
  }
}
