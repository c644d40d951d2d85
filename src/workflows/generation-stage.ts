// The generation stage: one video task created with the approved Asset:// addresses (never blindly
// resubmitted), waited for by callback or polling; orphans of an ambiguous create cancelled.
import { CancellationScope, condition } from '@temporalio/workflow';
import {
  generationCancelled,
  generationExpired,
  generationFailed,
  generationTimedOut,
  isFinalVideoStatus,
  pollActivityId,
  type VideoTaskSummary,
} from '../contract/index.js';
import type { ContentItem, CreateTaskBody } from '../model/video/schemas.js';
import { afterAmbiguousSubmit, ambiguityOf, unconfirmedFailure } from './ambiguity.js';
import type { ApprovedAsset } from './definitions.js';
import { countedAmbiguity } from './job-metrics.js';
import type { ReviewThenGenerateJob } from './input.js';
import type { RunState } from './run-state.js';
import { waitForFinal, WaitTimedOut } from './signal-or-poll.js';

/** The create body with every reviewed URL replaced by its Asset:// address (never downstream_final_url). */
export function withAssets(task: CreateTaskBody, assets: ApprovedAsset[]): CreateTaskBody {
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
 * Creates the video task once. An ambiguous answer (500, time-out, reset) is not retried blindly: when a
 * callback address was sent, a video callback naming a task confirms it and the run adopts it; otherwise
 * the run fails with SubmitUnconfirmed, unless the job opted in to resubmitting (ambiguity.ts). Only the
 * call itself is non-cancellable: a create under way always yields its id, but a cancel ends the wait.
 */
export async function createVideoTaskOnce(
  job: ReviewThenGenerateJob,
  run: RunState,
  workflowId: string,
  body: CreateTaskBody,
): Promise<{ taskId: string; callbackSent: boolean }> {
  const deadline = Date.now() + job.timing.generationTimeoutMs;
  for (let ambiguous = 1; ; ambiguous++) {
    try {
      return await CancellationScope.nonCancellable(() =>
        run.acts.submitting.rtgCreateVideoTask.executeWithOptions(
          { summary: `create video task (${String(body.model)})` },
          [{ workflowId, body, resubmitOnAmbiguity: job.resubmitOnAmbiguity, stageDeadline: deadline }],
        ),
      );
    } catch (err) {
      const ambiguity = ambiguityOf(err);
      if (!ambiguity) throw err;
      run.noteError(`create ambiguous (${ambiguous}): ${ambiguity.message}`);
      const next = await countedAmbiguity(
        'video',
        afterAmbiguousSubmit({
          ambiguity,
          count: ambiguous,
          resubmitOnAmbiguity: job.resubmitOnAmbiguity,
          graceMs: job.timing.createAmbiguityGraceMs,
          deadline,
          find: async (until) =>
            (await condition(() => run.videoCallbackTaskIds.length > 0, Math.max(until - Date.now(), 0)))
              ? run.videoCallbackTaskIds[0]
              : undefined,
          unconfirmed: (why) =>
            unconfirmedFailure(
              `the video task create (model ${String(body.model)})`,
              'the video generation service',
              ambiguity,
              why,
              { stage: 'creating', model: body.model, creates: ambiguous },
            ),
        }),
      );
      if (next !== 'resubmit') return { taskId: next.adopted, callbackSent: true };
    }
  }
}

/** `callbackSent`: the create carried a callback address; a job that wants callbacks then waits for them. */
export async function waitForVideo(
  job: ReviewThenGenerateJob,
  run: RunState,
  taskId: string,
  callbackSent: boolean,
): Promise<VideoTaskSummary> {
  const t = job.timing;
  const key = `video:${taskId}`;
  let task: VideoTaskSummary;
  try {
    task = await waitForFinal<VideoTaskSummary>({
      callbacksOn: job.callbacks && callbackSent,
      intervalMs: t.videoPollIntervalMs,
      fallbackMs: Math.max(t.callbackFallbackPollMs, t.videoPollIntervalMs),
      deadline: Date.now() + t.generationTimeoutMs,
      callbackPending: () => run.videoCallbackPending(),
      takeCallback: () => run.takeVideoCallback(),
      confirm: () =>
        run.queryInTurn(key, (pacing) =>
          run.acts.confirming.rtgQueryVideoTask.executeWithOptions({ summary: `confirm video task ${taskId}` }, [
            { taskId, minIntervalMs: 0, untilFinal: false, ...pacing },
          ]),
        ),
      poll: (cadenceMs, scheduleToCloseMs, fallback) =>
        run.queryInTurn(key, (pacing) =>
          run.acts
            .polling(
              scheduleToCloseMs,
              `poll video task ${taskId}`,
              fallback ? undefined : pollActivityId('video', taskId),
            )
            .rtgQueryVideoTask({ taskId, minIntervalMs: 0, cadenceMs, untilFinal: true, ...pacing }),
        ),
      isFinal: (r) => isFinalVideoStatus(r.status),
      onObserved: (r) => {
        run.recordQuery(key, r.nextQueryAt, r.retryAfterMs);
        run.observeVideo(r);
      },
      onRetryAfter: (r) => run.recordQuery(key, r.nextQueryAt, r.retryAfterMs),
      onQueryWithoutAnswer: (err) => run.recordQueryWithoutAnswer(key, 0, err),
    });
  } catch (err) {
    if (err instanceof WaitTimedOut) {
      throw generationTimedOut(`video task ${taskId} not final after ${t.generationTimeoutMs} ms`, { taskId });
    }
    throw err;
  }
  const evidence = { taskId, error: task.error, record: task.raw };
  if (task.status === 'failed') {
    throw generationFailed(
      `video task ${taskId} failed${task.error?.message ? `: ${task.error.message}` : ''}`,
      evidence,
    );
  }
  if (task.status === 'expired') throw generationExpired(`video task ${taskId} expired`, evidence);
  if (task.status === 'cancelled') throw generationCancelled(`video task ${taskId} was cancelled`, evidence);
  return task;
}

/**
 * A task that a video callback named but that is not the run's task can only come from an earlier create
 * of this run that was answered ambiguously and then resubmitted (callback URLs are signed per run): it
 * is cancelled, so that one job never leaves two tasks generating.
 */
export async function cancelOrphans(run: RunState): Promise<void> {
  for (const orphan of run.orphanTaskIds()) {
    run.noteOrphanCancelled(orphan);
    await CancellationScope.nonCancellable(() =>
      run.acts.cancelling.rtgCancelVideoTask.executeWithOptions({ summary: `cancel orphan video task ${orphan}` }, [
        { taskId: orphan },
      ]),
    ).catch(() => undefined); // best effort: the run's own outcome does not depend on it
  }
}

/** Cancels orphans as soon as a callback reveals them, while the run waits for its own task. */
export function watchForOrphans(run: RunState): void {
  void (async () => {
    for (;;) {
      await condition(() => run.orphanTaskIds().length > 0);
      await cancelOrphans(run);
    }
  })().catch(() => undefined); // ends with the run (its condition is cancelled with the root scope)
}
