// Activities of ReviewThenGenerate, created by a factory that receives their dependencies (clients and
// callback settings); nothing is read from the environment here. Names carry the `rtg` prefix so they
// cannot clash with the activities of a user's own worker.
import { Context } from '@temporalio/activity';
import { ApplicationFailure, ApplicationFailureCategory } from '@temporalio/common';
import { buildCallbackUrl, type CallbackKind } from '../callbacks/signing.js';
import { FailureType, InternalFailureType } from '../failure-types.js';
import { ServiceError } from '../services/errors.js';
import type { ReviewClient } from '../services/review/client.js';
import { isFinalReviewStatus, type ReviewSubmitBody, type ReviewTask } from '../services/review/schemas.js';
import type { VideoClient } from '../services/video/client.js';
import { isFinalVideoStatus, type CreateTaskBody, type VideoTask } from '../services/video/schemas.js';
import { createBatchActivities } from './batch.js';
import { evidenceOf, redactCallbackUrls, toApplicationFailure } from './failures.js';
import { createGatewayActivities } from './gateway.js';
import { QueryPacer } from './query-pacing.js';

export interface ActivityDependencies {
  video: VideoClient;
  review: ReviewClient;
  /** Where the callback receiver is reachable; undefined = no callback_url is ever sent (polling only). */
  callbacks?: { publicUrl: string; secret: string } | undefined;
}

/** Backoff of query network failures (spec: 1 s, 2 s, 4 s, then 4 s). */
export const QUERY_FAILURE_BACKOFF_MS = [1_000, 2_000, 4_000] as const;

export interface ReviewSubmitInput {
  workflowId: string;
  assetType: 'Image' | 'Video' | 'Audio';
  urls: string[];
  groupId?: string;
  groupSource?: '' | 'real_person';
  callbacks: boolean;
}

export interface PollInput {
  taskId: string;
  /** Queries of this task are never closer than this (Retry-After never shortens it). */
  minIntervalMs: number;
  /** true: keep polling (through activity retries) until a final state; false: one query. */
  untilFinal: boolean;
  /** Delay before the next poll when the state is not final (default: minIntervalMs). */
  cadenceMs?: number;
}

/** A review task as stored in history: items without downstream URLs, raw record without callback URLs. */
export type ReviewTaskSummary = Omit<ReviewTask, 'raw'> & { raw: Record<string, unknown>; queries: number };

export interface VideoCreateInput {
  workflowId: string;
  body: CreateTaskBody;
  callbacks: boolean;
}

export type VideoTaskSummary = VideoTask & { queries: number };

/** Heartbeat details of the create activity: what a retried attempt needs to know. */
interface CreateProgress {
  taskId?: string;
  /** The previous attempt failed in a way that proves no task was created. */
  notCreated?: boolean;
}

interface PollProgress {
  networkFailures: number;
}

export function createActivities(deps: ActivityDependencies) {
  const pacer = new QueryPacer();

  function callbackUrl(kind: CallbackKind, workflowId: string, wanted: boolean): string | undefined {
    if (!wanted || !deps.callbacks) return undefined;
    return buildCallbackUrl(deps.callbacks.publicUrl, deps.callbacks.secret, kind, workflowId);
  }

  /**
   * One query per attempt. A non-final state (when polling) or a transient error fails the attempt with
   * the delay before the next one; the activity's retry policy carries the loop, so waiting holds no
   * worker slot and adds no history event per poll.
   */
  async function pollOnce<T>(
    key: string,
    { minIntervalMs, untilFinal, cadenceMs }: PollInput,
    phase: 'review.query' | 'video.query',
    query: () => Promise<T>,
    isFinal: (t: T) => boolean,
  ): Promise<T & { queries: number }> {
    const ctx = Context.current();
    const previous = (ctx.info.heartbeatDetails as PollProgress | undefined) ?? { networkFailures: 0 };
    await pacer.acquire(key, minIntervalMs);
    let result: T;
    try {
      result = await query();
    } catch (err) {
      if (err instanceof ServiceError && err.retryable) {
        const failures = err.retryAfterMs === undefined ? previous.networkFailures + 1 : previous.networkFailures;
        const backoff = QUERY_FAILURE_BACKOFF_MS[Math.min(failures, QUERY_FAILURE_BACKOFF_MS.length) - 1] ?? 0;
        const failure = toApplicationFailure(err, phase, minIntervalMs, backoff);
        if (err.retryAfterMs !== undefined) pacer.defer(key, Math.max(err.retryAfterMs, minIntervalMs));
        ctx.heartbeat({ networkFailures: failures } satisfies PollProgress);
        throw failure;
      }
      throw toApplicationFailure(err, phase);
    }
    if (previous.networkFailures > 0) ctx.heartbeat({ networkFailures: 0 } satisfies PollProgress);
    if (untilFinal && !isFinal(result)) {
      throw ApplicationFailure.create({
        type: InternalFailureType.NotFinalYet,
        message: `${key} is not final yet`,
        nonRetryable: false,
        // Expected on every poll: benign failures are logged at debug level, not as warnings.
        category: ApplicationFailureCategory.BENIGN,
        nextRetryDelay: Math.max(cadenceMs ?? minIntervalMs, minIntervalMs),
      });
    }
    return { ...result, queries: ctx.info.attempt };
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
      try {
        const accepted = await deps.review.submitAsync(body);
        return { taskId: accepted.taskId, status: accepted.status };
      } catch (err) {
        throw toApplicationFailure(err, 'review.submit');
      }
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
      const ctx = Context.current();
      const previous = ctx.info.heartbeatDetails as CreateProgress | undefined;
      if (previous?.taskId) return { taskId: previous.taskId };
      if (ctx.info.attempt > 1 && !previous?.notCreated) {
        throw ApplicationFailure.create({
          type: InternalFailureType.CreateAmbiguous,
          message: 'a previous create attempt ended without an answer (worker lost or timed out); a task may exist',
          nonRetryable: true,
        });
      }
      const url = callbackUrl('video', input.workflowId, input.callbacks);
      const body: CreateTaskBody = url ? { ...input.body, callback_url: url } : input.body;
      try {
        const { id } = await deps.video.createTask(body);
        ctx.heartbeat({ taskId: id } satisfies CreateProgress);
        return { taskId: id };
      } catch (err) {
        if (err instanceof ServiceError && err.ambiguous) {
          throw ApplicationFailure.create({
            type: InternalFailureType.CreateAmbiguous,
            message: `${err.message}; not resubmitted blindly`,
            nonRetryable: true,
            details: [evidenceOf(err)],
          });
        }
        if (err instanceof ServiceError && err.retryable) ctx.heartbeat({ notCreated: true } satisfies CreateProgress);
        throw toApplicationFailure(err, 'video.create');
      }
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
