// Activities of ReviewThenGenerate, created by a factory that receives their dependencies (clients and
// callback settings); nothing is read from the environment here. Names carry the `rtg` prefix so they
// cannot clash with the activities of a user's own worker.
import { buildCallbackUrl, type CallbackKind } from '../callbacks/signing.js';
import { FailureType } from '../failure-types.js';
import { ServiceError } from '../services/errors.js';
import type { ReviewClient } from '../services/review/client.js';
import { isFinalReviewStatus, type ReviewSubmitBody, type ReviewTask } from '../services/review/schemas.js';
import type { VideoClient } from '../services/video/client.js';
import { isFinalVideoStatus, type CreateTaskBody, type VideoTask } from '../services/video/schemas.js';
import { createBatchActivities } from './batch.js';
import { redactCallbackUrls, toApplicationFailure } from './failures.js';
import { createGatewayActivities } from './gateway.js';
import { createAtMostOnce, createPoller, type PollInput } from './task-protocol.js';

export { QUERY_FAILURE_BACKOFF_MS, type PollInput } from './task-protocol.js';

export interface ActivityDependencies {
  video: VideoClient;
  review: ReviewClient;
  /** Where the callback receiver is reachable; undefined = no callback_url is ever sent (polling only). */
  callbacks?: { publicUrl: string; secret: string } | undefined;
}

export interface ReviewSubmitInput {
  workflowId: string;
  assetType: 'Image' | 'Video' | 'Audio';
  urls: string[];
  groupId?: string;
  groupSource?: '' | 'real_person';
  callbacks: boolean;
}

/** A review task as stored in history: items without downstream URLs, raw record without callback URLs. */
export type ReviewTaskSummary = Omit<ReviewTask, 'raw'> & { raw: Record<string, unknown>; queries: number };

export interface VideoCreateInput {
  workflowId: string;
  body: CreateTaskBody;
  callbacks: boolean;
}

export type VideoTaskSummary = VideoTask & { queries: number };

export function createActivities(deps: ActivityDependencies) {
  const pollOnce = createPoller();

  function callbackUrl(kind: CallbackKind, workflowId: string, wanted: boolean): string | undefined {
    if (!wanted || !deps.callbacks) return undefined;
    return buildCallbackUrl(deps.callbacks.publicUrl, deps.callbacks.secret, kind, workflowId);
  }

  return {
    ...createBatchActivities(),
    ...createGatewayActivities(deps),
    async rtgSubmitReview(input: ReviewSubmitInput): Promise<{ taskId: string; status: string }> {
      const body: ReviewSubmitBody = {
        images: input.urls,
        asset_type: input.assetType,
        ...(input.groupId ? { group_id: input.groupId } : {}),
        ...(input.groupSource !== undefined ? { group_source: input.groupSource } : {}),
      };
      const url = callbackUrl('review', input.workflowId, input.callbacks);
      if (url) body.callback_url = url;
      // At most once, like a create: a 500, time-out or reset is CreateAmbiguous (a review task may exist),
      // and the workflow looks for it before resubmitting.
      const { taskId, record } = await createAtMostOnce(async () => {
        const accepted = await deps.review.submitAsync(body);
        return { taskId: accepted.taskId, record: accepted.status };
      }, 'review.submit');
      return { taskId, status: record ?? 'pending' };
    },

    /** Synchronous review of a small batch: one call that answers the finished review task. */
    async rtgSubmitReviewSync(input: Omit<ReviewSubmitInput, 'callbacks'>): Promise<ReviewTaskSummary> {
      try {
        const task = await deps.review.submitSync({
          images: input.urls,
          asset_type: input.assetType,
          ...(input.groupId ? { group_id: input.groupId } : {}),
          ...(input.groupSource !== undefined ? { group_source: input.groupSource } : {}),
        });
        return { ...task, raw: redactCallbackUrls(task.raw), queries: 0 };
      } catch (err) {
        throw toApplicationFailure(err, 'review.submit');
      }
    },

    async rtgQueryReviewTask(input: PollInput): Promise<ReviewTaskSummary> {
      const task = await pollOnce(
        `review:${input.taskId}`,
        input,
        'review.query',
        () => deps.review.getTask(input.taskId),
        (t) => isFinalReviewStatus(t.status),
      );
      return { ...task, raw: redactCallbackUrls(task.raw) };
    },

    /**
     * Creates the video task at most once per activity: the id is recorded in the heartbeat details the
     * moment it arrives, and a retried attempt returns it. An outcome that may have created a task
     * (500, time-out, reset, or a previous attempt that vanished mid-call) is reported as
     * CreateAmbiguous, never retried here: the workflow decides, with the callbacks it receives.
     */
    async rtgCreateVideoTask(input: VideoCreateInput): Promise<{ taskId: string }> {
      const url = callbackUrl('video', input.workflowId, input.callbacks);
      const body: CreateTaskBody = url ? { ...input.body, callback_url: url } : input.body;
      const { taskId } = await createAtMostOnce(async () => ({ taskId: (await deps.video.createTask(body)).id, record: undefined }));
      return { taskId };
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

export type Activities = ReturnType<typeof createActivities>;
export { FailureType };
