// ReviewThenGenerate: media URLs -> asset review -> one video task with the approved Asset:// addresses
// -> the finished video. Deterministic: all I/O happens in activities.
import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  CancelledFailure,
  condition,
  isCancellation,
  proxyActivities,
  setHandler,
  workflowInfo,
  type ActivityOptions,
} from '@temporalio/workflow';
import type { Activities, ReviewTaskSummary, VideoTaskSummary } from '../activities/index.js';
import { FailureType, InternalFailureType } from '../failure-types.js';
import {
  progressQuery,
  reviewCallbackSignal,
  videoCallbackSignal,
  type ApprovedAsset,
  type CallbackSignal,
  type Progress,
  type ReviewThenGenerateResult,
  type Stage,
} from './definitions.js';
import { describeProblems, validateReviewThenGenerateInput, type ReviewBatch, type ReviewThenGenerateInput, type ReviewThenGenerateJob, type Timing } from './input.js';
import { waitForFinal, WaitTimedOut } from './signal-or-poll.js';
import { CONFIRM_RETRY, POLL_RETRY, SUBMIT_RETRY } from './retry-policies.js';
import { reportStage } from './visibility.js';
import type { ContentItem, CreateTaskBody } from '../services/video/schemas.js';

/** How many ambiguous creates (no callback naming a task within the grace) before giving up. */
const MAX_AMBIGUOUS_CREATES = 3;
const FINAL_VIDEO_STATES = new Set(['succeeded', 'failed', 'cancelled', 'expired']);
const FINAL_REVIEW_STATES = new Set(['completed', 'failed', 'cancelled']);

/** Activity proxies for one run; the per-attempt time-out comes from the run's timing. */
function activitiesFor(timing: Timing) {
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

type RunActivities = ReturnType<typeof activitiesFor>;

export async function ReviewThenGenerate(input: ReviewThenGenerateInput): Promise<ReviewThenGenerateResult> {
  const validation = validateReviewThenGenerateInput(input);
  if (!validation.ok) {
    throw ApplicationFailure.create({
      type: FailureType.InvalidInput,
      message: `invalid input: ${describeProblems(validation.problems)}`,
      nonRetryable: true,
      details: [{ problems: validation.problems }],
    });
  }
  const job = validation.job;
  const { workflowId } = workflowInfo();
  const run = new RunState(job);
  setHandler(progressQuery, () => run.progress);
  setHandler(reviewCallbackSignal, (s) => run.onReviewCallback(s));
  setHandler(videoCallbackSignal, (s) => run.onVideoCallback(s));

  try {
    run.setStage('reviewing');
    const assets = await reviewAll(job, run, workflowId);

    // Create in a non-cancellable scope: a create under way always yields its id, so a cancel that
    // arrives meanwhile can cancel the task instead of leaving it behind.
    run.setStage('creating');
    const taskId = await CancellationScope.nonCancellable(() => createOnce(job, run, workflowId, withAssets(job.task, assets)));
    run.setTaskId(taskId);
    watchForOrphans(run);
    if (CancellationScope.current().consideredCancelled) throw new CancelledFailure('cancelled while the video task was being created');

    run.setStage('generating');
    const task = await waitForVideo(job, run, taskId);
    await cancelOrphans(run);
    run.setStage('succeeded');
    return {
      taskId,
      state: 'succeeded',
      videoUrl: task.videoUrl,
      assets,
      reviewTaskIds: run.reviewTaskIds(),
      task: task.raw,
    };
  } catch (err) {
    if (isCancellation(err)) {
      run.setStage('cancelling');
      const taskId = run.progress.taskId;
      if (taskId) {
        await CancellationScope.nonCancellable(() => run.acts.confirming.rtgCancelVideoTask.executeWithOptions({ summary: `cancel video task ${taskId}` }, [{ taskId }]));
      }
      await cancelOrphans(run);
      run.setStage('cancelled');
      throw err;
    }
    const failure = asPublicFailure(err, run.progress.stage);
    await cancelOrphans(run);
    run.fail(failure);
    throw failure;
  }
}

/**
 * A task that a video callback named but that is not the run's task can only come from an earlier create
 * of this run that was answered ambiguously and then resubmitted (callback URLs are signed per run): it
 * is cancelled, so that one job never leaves two tasks generating.
 */
async function cancelOrphans(run: RunState): Promise<void> {
  for (const orphan of run.orphanTaskIds()) {
    run.progress.orphanTasksCancelled = [...(run.progress.orphanTasksCancelled ?? []), orphan];
    await CancellationScope.nonCancellable(() =>
      run.acts.confirming.rtgCancelVideoTask.executeWithOptions({ summary: `cancel orphan video task ${orphan}` }, [{ taskId: orphan }]),
    ).catch(() => undefined); // best effort: the run's own outcome does not depend on it
  }
}

/** Cancels orphans as soon as a callback reveals them, while the run waits for its own task. */
function watchForOrphans(run: RunState): void {
  void (async () => {
    for (;;) {
      await condition(() => run.orphanTaskIds().length > 0);
      await cancelOrphans(run);
    }
  })().catch(() => undefined); // ends with the run (its condition is cancelled with the root scope)
}

const PUBLIC_FAILURE_TYPES = new Set<string>(Object.values(FailureType));

/**
 * Callers see one ApplicationFailure whose type is in the public contract, not the activity wrapper: an
 * activity's final failure keeps its type and evidence; anything else (retries exhausted, time-outs) is
 * reported as the failure of the stage it happened in.
 */
function asPublicFailure(err: unknown, stage: Stage): unknown {
  if (err instanceof ApplicationFailure && err.type && PUBLIC_FAILURE_TYPES.has(err.type)) return err;
  if (!(err instanceof ActivityFailure) && !(err instanceof ApplicationFailure)) return err;
  const cause = err instanceof ActivityFailure ? err.cause : err;
  const causeType = cause instanceof ApplicationFailure ? cause.type : undefined;
  const type = causeType && PUBLIC_FAILURE_TYPES.has(causeType) ? causeType : stage === 'reviewing' ? FailureType.ReviewFailed : FailureType.GenerationFailed;
  return ApplicationFailure.create({
    type,
    message: cause?.message ?? err.message,
    nonRetryable: true,
    details: cause instanceof ApplicationFailure ? [...(cause.details ?? [])] : [],
  });
}

/** Mutable state of one run: progress (for the `progress` query) and the callbacks received. */
class RunState {
  readonly progress: Progress;
  readonly acts: RunActivities;
  private pendingReviewCallbacks = new Set<string>();
  private anonymousReviewCallback = false;
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
    const known = s.taskId && this.progress.review.tasks.some((t) => t.taskId === s.taskId);
    if (s.taskId && known) this.pendingReviewCallbacks.add(s.taskId);
    else if (s.taskId && this.progress.review.tasks.length > 0) this.progress.callbacks.ignored++;
    else this.anonymousReviewCallback = true; // no usable id: confirm every waiting task
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

async function reviewAll(job: ReviewThenGenerateJob, run: RunState, workflowId: string): Promise<ApprovedAsset[]> {
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
    const accepted = await run.acts.submitting.rtgSubmitReview.executeWithOptions({ summary }, [{ ...common, callbacks: job.callbacks }]);
    const taskId = accepted.taskId;
    run.progress.review.tasks[index]!.taskId = taskId;
    run.progress.review.tasks[index]!.status = accepted.status;
    reportStage(job, run.progress);
    try {
      final = await waitForFinal<ReviewTaskSummary>({
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

/** The create body with every reviewed URL replaced by its Asset:// address (never downstream_final_url). */
function withAssets(task: CreateTaskBody, assets: ApprovedAsset[]): CreateTaskBody {
  if (assets.length === 0) return task;
  const bySource = new Map(assets.map((a) => [a.sourceUrl, a.assetUrl]));
  const content = task.content.map((item: ContentItem): ContentItem => {
    for (const key of ['image_url', 'video_url', 'audio_url'] as const) {
      const media = (item as Record<string, unknown>)[key] as { url?: string } | undefined;
      const replacement = media?.url ? bySource.get(media.url) : undefined;
      if (media && replacement) return { ...item, [key]: { ...media, url: replacement } } as ContentItem;
    }
    return item;
  });
  return { ...task, content };
}

/**
 * Creates the video task once. An ambiguous answer (500, time-out) is not retried blindly: wait up to
 * `createAmbiguityGraceMs` for a video callback naming a task and adopt it; resubmit only when none came.
 */
async function createOnce(job: ReviewThenGenerateJob, run: RunState, workflowId: string, body: CreateTaskBody): Promise<string> {
  for (let ambiguous = 0; ; ) {
    try {
      const { taskId } = await run.acts.submitting.rtgCreateVideoTask.executeWithOptions({ summary: `create video task (${String(body.model)})` }, [
        { workflowId, body, callbacks: job.callbacks },
      ]);
      return taskId;
    } catch (err) {
      if (!isAmbiguousCreate(err)) throw err;
      ambiguous++;
      run.progress.lastError = `create ambiguous (${ambiguous}): ${errorMessage(err)}`;
      if (job.callbacks) {
        const named = await condition(() => run.videoCallbackTaskIds.length > 0, job.timing.createAmbiguityGraceMs);
        if (named) return run.videoCallbackTaskIds[0]!;
      }
      if (ambiguous >= MAX_AMBIGUOUS_CREATES) {
        throw ApplicationFailure.create({
          type: FailureType.GenerationFailed,
          message: `video task creation stayed ambiguous ${ambiguous} times (no answer and no callback naming a task); not resubmitted again`,
          nonRetryable: true,
          details: [{ lastError: errorMessage(err) }],
        });
      }
    }
  }
}

function isAmbiguousCreate(err: unknown): boolean {
  return err instanceof Error && 'cause' in err && err.cause instanceof ApplicationFailure && err.cause.type === InternalFailureType.CreateAmbiguous;
}

function errorMessage(err: unknown): string {
  if (err instanceof Error && err.cause instanceof Error) return err.cause.message;
  return err instanceof Error ? err.message : String(err);
}

async function waitForVideo(job: ReviewThenGenerateJob, run: RunState, taskId: string): Promise<VideoTaskSummary> {
  const t = job.timing;
  let task: VideoTaskSummary;
  try {
    task = await waitForFinal<VideoTaskSummary>({
      callbacksOn: job.callbacks,
      intervalMs: t.videoPollIntervalMs,
      fallbackMs: Math.max(t.callbackFallbackPollMs, t.videoPollIntervalMs),
      deadline: Date.now() + t.generationTimeoutMs,
      callbackPending: () => run.videoCallbackPending(),
      takeCallback: () => run.takeVideoCallback(),
      confirm: () => run.acts.confirming.rtgQueryVideoTask.executeWithOptions({ summary: `confirm video task ${taskId}` }, [{ taskId, minIntervalMs: 0, untilFinal: false }]),
      poll: (cadenceMs, scheduleToCloseMs) =>
        run.acts.polling(scheduleToCloseMs, `poll video task ${taskId}`).rtgQueryVideoTask({ taskId, minIntervalMs: 0, cadenceMs, untilFinal: true }),
      isFinal: (r) => FINAL_VIDEO_STATES.has(r.status),
      onObserved: (r) => run.observeVideo(r),
    });
  } catch (err) {
    if (err instanceof WaitTimedOut) {
      throw ApplicationFailure.create({ type: FailureType.GenerationTimedOut, message: `video task ${taskId} not final after ${t.generationTimeoutMs} ms`, nonRetryable: true, details: [{ taskId }] });
    }
    throw err;
  }
  const evidence = [{ taskId, error: task.error, record: task.raw }];
  if (task.status === 'failed') {
    throw ApplicationFailure.create({ type: FailureType.GenerationFailed, message: `video task ${taskId} failed${task.error?.message ? `: ${task.error.message}` : ''}`, nonRetryable: true, details: evidence });
  }
  if (task.status === 'expired') {
    throw ApplicationFailure.create({ type: FailureType.GenerationExpired, message: `video task ${taskId} expired`, nonRetryable: true, details: evidence });
  }
  if (task.status === 'cancelled') {
    throw ApplicationFailure.create({ type: FailureType.GenerationCancelled, message: `video task ${taskId} was cancelled`, nonRetryable: true, details: evidence });
  }
  return task;
}
