// The generation stage: one video task created with the approved Asset:// addresses (never blindly
// resubmitted), waited for by callback or polling. Orphans of an ambiguous create: orphans.ts.
import { CancellationScope, condition } from '@temporalio/workflow';
import {
  generationCancelled,
  generationExpired,
  generationFailed,
  generationTimedOut,
  isFinalVideoStatus,
  WORKING_VIDEO_STATUSES,
  type VideoTaskSummary,
} from '../contract/index.js';
import { QuotaTicket } from './admission/job-slot.js';
import type { ContentItem, CreateTaskBody } from '../model/video/schemas.js';
import { unconfirmedFailure } from './ambiguity.js';
import type { ApprovedAsset } from '../job/definitions.js';
import type { ReviewThenGenerateJob } from '../job/input.js';
import { RemoteTask, type RemoteTaskRules } from './remote-task.js';
import type { RunState } from './run-state.js';
import { submitAtMostOnce } from './submit-once.js';
import { waitUntilFinal } from './task-waiter.js';

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

/** The spec's rules for a video task (no minimum interval; `cancelled` is confirmed like any final state). */
export function videoTaskRules(job: ReviewThenGenerateJob): RemoteTaskRules {
  const t = job.timing;
  return {
    minIntervalMs: 0,
    pollIntervalMs: t.videoPollIntervalMs,
    fallbackMs: Math.max(t.callbackFallbackPollMs, t.videoPollIntervalMs),
    callbacks: job.callbacks,
    cancelledStopsQueries: false,
    isFinal: isFinalVideoStatus,
    isWorking: (s) => WORKING_VIDEO_STATUSES.has(s),
  };
}

/**
 * Creates the video task once. An ambiguous answer (500, time-out, reset) is not retried blindly: when a
 * callback address was sent, a video callback naming a task confirms it and the run adopts it; otherwise
 * the run fails with SubmitUnconfirmed, unless the job opted in to resubmitting (ambiguity.ts). Only the
 * call itself is non-cancellable: a create under way always yields its id, but a cancel ends the wait.
 *
 * Where the worker limits the provider's tasks in flight, the create activity first queues the run at the
 * quota's gate and sends nothing; the run waits for its grant (stage `waiting_for_quota`, no activity
 * slot held), then creates. A 429 after the grant sends it back to waiting, costing no retry. The
 * generation time-out (the returned deadline) starts when the create can go out.
 */
export async function createVideoTaskOnce(
  job: ReviewThenGenerateJob,
  run: RunState,
  workflowId: string,
  body: CreateTaskBody,
): Promise<{ task: RemoteTask; deadline: number }> {
  const task = new RemoteTask(videoTaskRules(job));
  run.planVideoTask(task, body);
  const outcome = await submitAtMostOnce({
    job,
    run,
    kind: 'video',
    label: 'create',
    task,
    quota: QuotaTicket.forJob(job, run, 'video create'),
    timeoutMs: job.timing.generationTimeoutMs,
    deadline: Date.now() + job.timing.generationTimeoutMs,
    send: (admission, stageDeadline) =>
      CancellationScope.nonCancellable(() =>
        run.acts.submitting.rtgCreateVideoTask.executeWithOptions(
          { summary: `create video task (${String(body.model)})` },
          [
            {
              workflowId,
              body,
              resubmitOnAmbiguity: job.resubmitOnAmbiguity,
              stageDeadline,
              ...(job.callbacks ? {} : { polls: true }),
              admission,
            },
          ],
        ),
      ),
    find: async (until) =>
      (await condition(() => run.namedVideoTaskIds().length > 0, Math.max(until - Date.now(), 0)))
        ? run.namedVideoTaskIds()[0]
        : undefined,
    unconfirmed: (ambiguity, creates) => (why) =>
      unconfirmedFailure(
        `the video task create (model ${String(body.model)})`,
        'the video generation service',
        ambiguity,
        why,
        { stage: 'creating', model: body.model, creates },
      ),
  });
  if ('sent' in outcome) {
    const { taskId, callbackSent } = outcome.sent;
    run.setTaskId(taskId);
    task.apply({ type: 'submitted', taskId, at: Date.now(), callbackSent });
  } else {
    // Adopted: its callback named it. It is queried like any task whose callback needs a query.
    run.setTaskId(outcome.adopted);
    task.apply({ type: 'adopted', taskId: outcome.adopted, at: Date.now() });
  }
  return { task, deadline: outcome.deadline };
}

/** Waits for the video task until final (callback or polling), then reads its outcome. */
export async function waitForVideo(
  job: ReviewThenGenerateJob,
  run: RunState,
  task: RemoteTask,
  deadline: number,
): Promise<VideoTaskSummary> {
  const t = job.timing;
  const taskId = task.taskId!;
  const query = { taskId, minIntervalMs: 0 };
  const outcome = await waitUntilFinal<VideoTaskSummary>(
    task,
    {
      confirm: (pacing) =>
        run.acts.confirming.rtgQueryVideoTask.executeWithOptions({ summary: `confirm video task ${taskId}` }, [
          { ...query, ...pacing, untilFinal: false },
        ]),
      poll: (pacing, scheduleToCloseMs) =>
        run.acts
          .polling(scheduleToCloseMs, `poll video task ${taskId}`)
          .rtgQueryVideoTask({ ...query, ...pacing, cadenceMs: t.videoPollIntervalMs, untilFinal: true }),
      statusOf: (r) => r.status,
      retryAfterOf: (r) => r.retryAfterMs,
      observe: (r) => run.observeVideo(r),
      slot: run.quotaSlots.handOff('video create'),
    },
    deadline,
  );
  const answer = outcome.answer;
  if (outcome.status === 'timed out' || !answer) {
    throw generationTimedOut(`video task ${taskId} not final after ${t.generationTimeoutMs} ms`, { taskId });
  }
  const evidence = { taskId, error: answer.error, record: answer.raw };
  if (answer.status === 'failed') {
    throw generationFailed(
      `video task ${taskId} failed${answer.error?.message ? `: ${answer.error.message}` : ''}`,
      evidence,
    );
  }
  if (answer.status === 'expired') throw generationExpired(`video task ${taskId} expired`, evidence);
  if (answer.status === 'cancelled') throw generationCancelled(`video task ${taskId} was cancelled`, evidence);
  return answer;
}
