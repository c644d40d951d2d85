// Mutable state of one ReviewThenGenerate run: the progress (for the `progress` query and the Web UI),
// one RemoteTask per remote task (remote-task.ts: phase, pacing, pending callbacks), and the task ids
// callbacks named, which resolve an ambiguous submit and reveal orphans. Every write to the progress goes
// through a method here; the stages read it.
import type { CallbackSignal, ReviewTaskSummary, VideoTaskSummary } from '../contract/index.js';
import type { CreateTaskBody } from '../model/video/schemas.js';
import type { Progress, Stage } from '../job/definitions.js';
import type { ReviewBatch, ReviewThenGenerateJob } from '../job/input.js';
import { NamedReviewTasks } from './named-review-tasks.js';
import type { RemoteTask } from './remote-task.js';
import { RunSlots, type QuotaSlot, type SlotOwner } from './admission/run-slots.js';
import type { RunActivities } from './run-activities.js';
import { INDEXED_STAGES, indexStage, showProgress } from './visibility.js';

export class RunState {
  readonly #progress: Progress;
  #indexedStage: Stage | undefined;
  /** One per review batch, by batch index; the video task's once its create is under way. */
  readonly #reviewTasks: RemoteTask[] = [];
  #videoTask: RemoteTask | undefined;
  /** Every review task id named by a (signed) review callback of this run, in arrival order. */
  readonly #namedReviewTaskIds: string[] = [];
  /** Every task id named by a (signed) video callback of this run, in arrival order. */
  readonly #namedVideoTaskIds: string[] = [];
  /** Named video tasks checked as possible orphans (cancelled or not). */
  readonly #orphansChecked = new Set<string>();
  #videoCreateBody: CreateTaskBody | undefined;
  /** Review tasks callbacks named before a batch claimed them: each read through its own RemoteTask. */
  readonly namedReviewTasks = new NamedReviewTasks();
  /** The quota slot each remote task was queued for, until given back. */
  readonly quotaSlots = new RunSlots();

  /**
   * `show` puts the progress in the Web UI's current details at each change of stage or task; `index`
   * upserts the search attributes once per stage users filter on. Unit tests give no-ops.
   */
  constructor(
    readonly job: ReviewThenGenerateJob,
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

  // ---- Review ----------------------------------------------------------------------------------------

  /** A batch is being submitted: its entry in the progress and its task, before any task id is known. */
  planReviewTask(index: number, batch: ReviewBatch, task: RemoteTask) {
    this.#reviewTasks[index] = task;
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

  reviewTaskIds() {
    return this.#progress.review.tasks.map((t) => t.taskId);
  }

  onReviewCallback(s: CallbackSignal) {
    this.#progress.callbacks.review++;
    if (s.taskId && !this.#namedReviewTaskIds.includes(s.taskId)) this.#namedReviewTaskIds.push(s.taskId);
    this.namedReviewTasks.heard(s);
    // Each task takes what is its own: one naming another task is ignored, one naming none wakes all.
    for (const task of this.#reviewTasks) task?.apply({ type: 'callback', taskId: s.taskId, status: s.status });
  }

  /**
   * Review tasks named by callbacks that no batch has as its task yet: callback URLs are signed per run, so
   * each comes from a submit of this run whose answer is not recorded yet or was lost (ambiguous).
   */
  unclaimedReviewTaskIds(): string[] {
    const claimed = new Set(this.reviewTaskIds());
    return this.#namedReviewTaskIds.filter((id) => !claimed.has(id));
  }

  observeReview(batchIndex: number, t: ReviewTaskSummary) {
    const entry = this.#progress.review.tasks[batchIndex];
    if (!entry) return;
    entry.status = t.status === 'unknown' ? (t.rawStatus ?? 'unknown') : t.status;
    if (t.doneCount !== undefined) entry.doneCount = t.doneCount;
    if (t.totalCount !== undefined) entry.totalCount = t.totalCount;
    this.#progress.queries.review += t.queries || 1;
  }

  // ---- Video -----------------------------------------------------------------------------------------

  /** The video task's create is under way: callbacks from now on are its own (or orphans'). */
  planVideoTask(task: RemoteTask, body: CreateTaskBody) {
    this.#videoTask = task;
    this.#videoCreateBody = body;
  }

  /** What the run's create sent (an orphan is the job's only if its record agrees). */
  get videoCreateBody(): CreateTaskBody | undefined {
    return this.#videoCreateBody;
  }

  setTaskId(taskId: string) {
    this.#progress.taskId = taskId;
    this.report();
  }

  onVideoCallback(s: CallbackSignal) {
    this.#progress.callbacks.video++;
    if (s.taskId && !this.#namedVideoTaskIds.includes(s.taskId)) this.#namedVideoTaskIds.push(s.taskId);
    const current = this.#progress.taskId;
    if (s.taskId && current && s.taskId !== current) this.#progress.callbacks.ignored++;
    this.#videoTask?.apply({ type: 'callback', taskId: s.taskId, status: s.status });
  }

  /** Video task ids callbacks named, in arrival order (one resolves an ambiguous create). */
  namedVideoTaskIds(): readonly string[] {
    return this.#namedVideoTaskIds;
  }

  /**
   * Tasks callbacks named besides the run's that may be orphans, not checked yet: only when the run's own
   * create was ambiguous (a task of it may exist besides the run's). Any other id a body names is a hint
   * about no task of this run, and nothing is done about it.
   */
  orphanTaskIds(): string[] {
    if (!this.#videoTask?.wasAmbiguous) return [];
    const handled = new Set([this.#progress.taskId, ...this.#orphansChecked]);
    return this.#namedVideoTaskIds.filter((id) => !handled.has(id));
  }

  /** A possible orphan is being checked (one query), so it is never checked twice. */
  noteOrphanChecked(taskId: string) {
    this.#orphansChecked.add(taskId);
  }

  /** An orphan of an ambiguous create, confirmed the job's by a query, is being cancelled. */
  noteOrphanCancelled(taskId: string) {
    this.#progress.orphanTasksCancelled = [...(this.#progress.orphanTasksCancelled ?? []), taskId];
  }

  observeVideo(t: VideoTaskSummary) {
    this.#progress.state = t.status === 'unknown' ? (t.rawStatus ?? 'unknown') : t.status;
    this.#progress.queries.video += t.queries || 1;
  }

  // ---- Admission (the provider's quota) ----------------------------------------------------------------

  /**
   * `owner`'s submit or create waits for a slot of `slot.key` (queued, or refused by the provider after a
   * grant). The progress shows the latest task to wait; the stage is `waiting_for_quota` while any does.
   */
  waitForQuota(owner: SlotOwner, slot: QuotaSlot, refusal?: string) {
    const before = this.#progress.admission;
    this.#progress.admission = {
      quotaKey: slot.key,
      requestId: slot.requestId,
      waitingSince: before?.requestId === slot.requestId ? before.waitingSince : Date.now(),
      refusals: (before?.refusals ?? 0) + (refusal !== undefined ? 1 : 0),
    };
    if (refusal !== undefined) this.noteError(`${owner} refused for the provider's quota: ${refusal}`);
    this.setStage('waiting_for_quota');
  }

  /** `owner`'s ask was granted in the gate's answer: its submit or create goes out in the next attempt. */
  admittedAtOnce(owner: SlotOwner, slot: QuotaSlot) {
    const { key: quotaKey, requestId } = slot;
    const now = Date.now();
    this.#progress.admission = { quotaKey, requestId, waitingSince: now, admittedAt: now, refusals: 0 };
  }

  /** The gate granted `owner`'s slot: its submit or create goes out now, and its stage's time-out starts. */
  admitted(owner: SlotOwner, noneWaiting: boolean) {
    const a = this.#progress.admission;
    if (a && a.requestId === this.quotaSlots.requestIdOf(owner)) a.admittedAt = Date.now();
    if (noneWaiting) this.setStage(owner === 'video create' ? 'creating' : 'reviewing');
  }

  // ---- The run ---------------------------------------------------------------------------------------

  setStage(stage: Stage) {
    this.#progress.stage = stage;
    this.report();
  }

  /** The last thing that went wrong, shown in `progress` and the Web UI, even when the run goes on. */
  noteError(message: string) {
    this.#progress.lastError = message;
  }

  fail(err: unknown) {
    this.#progress.stage = 'failed';
    this.#progress.lastError = err instanceof Error ? err.message : String(err);
    this.report();
  }
}
