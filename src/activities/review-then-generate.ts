// Activities of ReviewThenGenerate (and, spread in, those of the batch and GenerateAndPoll workflows),
// created by a factory that receives their dependencies (clients and callback settings); nothing is read
// from the environment here. Names carry the `rtg` prefix so they cannot clash with a user's own.
import { Context } from '@temporalio/activity';
import { buildCallbackUrl, callbackExpiry, type CallbackKind, type CallbackSecrets } from '../callback-signing.js';
import { ServiceError } from '../services/errors.js';
import type { ReviewClient } from '../services/review/client.js';
import { isFinalReviewStatus, type ReviewSubmitBody } from '../model/review/schemas.js';
import type { VideoClient } from '../services/video/client.js';
import { isFinalVideoStatus, type CreateTaskBody } from '../model/video/schemas.js';
import type {
  Activities,
  PollInput,
  QuotaAnswer,
  ReviewSubmitInput,
  ReviewSubmitOutcome,
  ReviewSyncSubmitInput,
  ReviewTaskSummary,
  VideoCreateInput,
  VideoCreateOutcome,
  VideoTaskSummary,
} from '../contract/index.js';
import type { AdmissionSettings } from '../config/admission.js';
import type { NotifySettings } from '../config/notify.js';
import { sendWithinQuota } from './admission.js';
import { reviewLimitsFor, videoSlotFor, type SlotWanted } from './admission-limits.js';
import { createBatchActivities } from './batch.js';
import { redactCallbackUrls } from './redact-callback-urls.js';
import { toApplicationFailure } from './service-failures.js';
import { createGatewayActivities } from './gateway.js';
import { createJobNeedsActivities } from './job-needs.js';
import { createNotifyActivities } from './notify.js';
import { createStoreActivities } from './store-video.js';
import type { VideoStore } from '../store/types.js';
import { createAtMostOnce, pollOnce } from './task-protocol.js';

/** Where the services reach the callback receiver, and the keys that sign the URLs they are given. */
export interface CallbackSettings {
  publicUrl: string;
  /** One key, or several newest first: the first signs (CALLBACK_SECRET). */
  secret: CallbackSecrets;
}

export interface ActivityDependencies {
  video: VideoClient;
  review: ReviewClient;
  /** Where the callback receiver is reachable; undefined = no callback_url is ever sent (polling only). */
  callbacks?: CallbackSettings | undefined;
  /** Where `rtgStoreVideo` copies finished videos (VIDEO_STORE); undefined = jobs asking for it fail. */
  store?: VideoStore | undefined;
  /** The provider's limits (VIDEO_MAX_TASKS_IN_FLIGHT...); none = every create is sent at once. */
  admission?: AdmissionSettings | undefined;
  /** Outgoing webhooks (NOTIFY_URL, NOTIFY_SECRET...); none = jobs with `notify` are refused at their start. */
  notify?: NotifySettings | undefined;
}

/**
 * Whether a create records its task id in a heartbeat (a billable action) for an attempt retried after a
 * lost worker. Not when a callback address went out and the job never resubmits: that retry is
 * CreateAmbiguous, and the run adopts the task its callback names (afterAmbiguousSubmit). A job that may
 * resubmit keeps the record, since its grace window could end before the callback comes.
 */
export function recordsTaskId(callbackSent: boolean, resubmitOnAmbiguity: boolean | undefined): boolean {
  return !callbackSent || resubmitOnAmbiguity !== false;
}

/** The longest default stage time-out (generation, 2 h): the expiry base for runs scheduled by 0.2.0. */
const LEGACY_STAGE_TIMEOUT_MS = 2 * 60 * 60_000;

/** Every activity of the package, as the contract declares them (src/contract/activities.ts). */
export function createActivities(deps: ActivityDependencies): Activities {
  /**
   * Sent on every submit and create when the worker has a receiver, even for jobs that poll: a callback
   * naming the task is then the way to confirm an ambiguous answer (spec: check the callback for a task id).
   */
  function callbackUrl(
    kind: CallbackKind,
    workflowId: string,
    stageDeadline: number | undefined,
    polls = false,
  ): string | undefined {
    // Bound to this run: a late callback of an earlier run of the same workflow id can never reach a new
    // one. An activity run outside a workflow (a standalone activity) has no run to call back: it polls.
    const runId = Context.current().info.workflowExecution?.runId;
    if (!deps.callbacks || !runId) return undefined;
    const deadline = stageDeadline ?? Date.now() + LEGACY_STAGE_TIMEOUT_MS;
    return buildCallbackUrl(deps.callbacks.publicUrl, deps.callbacks.secret, {
      kind,
      workflowId,
      runId,
      expiresAt: callbackExpiry(deadline),
      ...(polls ? { polls } : {}),
    });
  }

  /** The review gate a submit asks, where the worker limits review tasks. */
  function reviewSlot(): SlotWanted | undefined {
    const settings = deps.admission?.review;
    const limits = reviewLimitsFor(settings);
    return settings && limits ? { settings, limits } : undefined;
  }

  /** The video gate a create asks, where a limit applies to its model or its tenant. */
  function videoSlot(input: VideoCreateInput): SlotWanted | undefined {
    return videoSlotFor(deps.admission?.video, input.admission?.fairnessKey, {
      kind: 'native',
      body: input.body,
      field: 'task',
    });
  }

  function reviewBody(input: ReviewSubmitInput): ReviewSubmitBody {
    return {
      images: input.urls,
      asset_type: input.assetType,
      ...(input.groupId ? { group_id: input.groupId } : {}),
      ...(input.groupSource !== undefined ? { group_source: input.groupSource } : {}),
    };
  }

  return {
    ...createBatchActivities(),
    ...createGatewayActivities(deps),
    ...createStoreActivities(deps),
    ...createJobNeedsActivities(deps),
    ...createNotifyActivities(deps.notify),
    async rtgSubmitReview(input: ReviewSubmitInput): Promise<ReviewSubmitOutcome> {
      return sendWithinQuota(reviewSlot(), input.admission, async () => {
        const body = reviewBody(input);
        const url = callbackUrl('review', input.workflowId, input.stageDeadline);
        if (url) body.callback_url = url;
        const callbackSent = url !== undefined;
        // At most once, like a create: a 500, time-out or reset is CreateAmbiguous (a review task may
        // exist), and the workflow looks for it before resubmitting.
        const { taskId, record } = await createAtMostOnce(
          async () => {
            const accepted = await deps.review.submitAsync(body);
            return { taskId: accepted.taskId, record: accepted.status };
          },
          'review.submit',
          { callbackSent },
          recordsTaskId(callbackSent, input.resubmitOnAmbiguity),
        );
        return { taskId, status: record ?? 'pending', callbackSent };
      });
    },

    /**
     * Synchronous review of a small batch: one blocking call, at most once (it may have been received
     * whatever went wrong after sending, and it has no callback to confirm it). Its answer may still be
     * unfinished: then it carries the task id to query.
     */
    async rtgSubmitReviewSync(input: ReviewSyncSubmitInput): Promise<ReviewTaskSummary | QuotaAnswer> {
      return sendWithinQuota(reviewSlot(), input.admission, async () => {
        const { record } = await createAtMostOnce(
          async () => {
            const task = await deps.review.submitSync(reviewBody(input), { timeoutMs: input.timeoutMs });
            // A Retry-After on the answer is in `retryAfterMs`: the run's RemoteTask obeys it (spec, Limits).
            const summary: ReviewTaskSummary = { ...task, raw: redactCallbackUrls(task.raw), queries: 0 };
            return { taskId: task.taskId ?? '', record: summary };
          },
          'review.submit',
          { callbackSent: false },
        );
        return record!;
      });
    },

    async rtgQueryReviewTask(input: PollInput): Promise<ReviewTaskSummary> {
      const task = await pollOnce(
        `review:${input.taskId}`,
        input,
        'review.query',
        // A query never outlives its attempt (as one would not outlive its worker): when the attempt is
        // cancelled or its start-to-close time-out passes, its request is aborted, so no query of the
        // next attempt is sent while this one is open, and the backoff counts from the give-up.
        () => deps.review.getTask(input.taskId, { signal: attemptSignal() }),
        (t) => isFinalReviewStatus(t.status),
      );
      return { ...task, raw: redactCallbackUrls(task.raw) };
    },

    /**
     * Creates the video task at most once per activity: the id is recorded in the heartbeat details the
     * moment it arrives (unless a callback will name it, recordsTaskId), and a retried attempt returns it.
     * An outcome that may have created a task (500, time-out, reset, or a previous attempt that vanished
     * mid-call) is reported as CreateAmbiguous, never retried here: the workflow decides, with the
     * callbacks it receives.
     */
    async rtgCreateVideoTask(input: VideoCreateInput): Promise<VideoCreateOutcome> {
      // Where the provider's tasks in flight are limited, a create waits for its slot (holding no worker slot).
      return sendWithinQuota(videoSlot(input), input.admission, async () => {
        const url = callbackUrl('video', input.workflowId, input.stageDeadline, input.polls);
        const body: CreateTaskBody = url ? { ...input.body, callback_url: url } : input.body;
        const callbackSent = url !== undefined;
        const { taskId } = await createAtMostOnce(
          async () => ({ taskId: (await deps.video.createTask(body)).id, record: undefined }),
          'video.create',
          { callbackSent },
          recordsTaskId(callbackSent, input.resubmitOnAmbiguity),
        );
        return { taskId, callbackSent };
      });
    },

    async rtgQueryVideoTask(input: PollInput): Promise<VideoTaskSummary> {
      const task = await pollOnce(
        `video:${input.taskId}`,
        input,
        'video.query',
        () => deps.video.getTask(input.taskId),
        (t) => isFinalVideoStatus(t.status),
      );
      return { ...task, raw: redactCallbackUrls(task.raw) };
    },

    async rtgCancelVideoTask(input: { taskId: string }): Promise<{ cancelled: boolean; status?: number }> {
      try {
        await deps.video.cancelTask(input.taskId);
        return { cancelled: true };
      } catch (err) {
        // A task that is already final cannot be cancelled: not an error for the workflow.
        if (err instanceof ServiceError && (err.status === 404 || err.status === 409)) {
          return { cancelled: false, status: err.status };
        }
        throw toApplicationFailure(err, 'video.cancel');
      }
    },
  };
}

/** The server has timed an attempt out by this long after its start-to-close time-out (its clock, ours). */
const ATTEMPT_END_MARGIN_MS = 250;

/**
 * Aborts when the current activity attempt is cancelled, or just after its start-to-close time-out: by
 * then the server has ended the attempt, as it would a worker's that died, and its answer could reach no one.
 */
function attemptSignal(): AbortSignal {
  const { info, cancellationSignal } = Context.current();
  const left = info.currentAttemptScheduledTimestampMs + info.startToCloseTimeoutMs - Date.now();
  return AbortSignal.any([cancellationSignal, AbortSignal.timeout(Math.max(left, 0) + ATTEMPT_END_MARGIN_MS)]);
}
