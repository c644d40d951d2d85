// The two protocols every remote-task activity follows (native task API and gateway entry points alike).
// - pollOnce: one query per activity attempt; a non-final state or a transient error fails the attempt
//   with the delay before the next one, so the activity's retry policy carries the loop: waiting holds no
//   worker slot and adds no history event per poll.
// - createAtMostOnce: the task id is recorded in the heartbeat details the moment it is known and a
//   retried attempt returns it; an outcome that may have created a task is CreateAmbiguous, never retried.
//   Video creates and review submits alike (spec: no duplicate submit after a time-out).
import { Context } from '@temporalio/activity';
import { ApplicationFailure, ApplicationFailureCategory } from '@temporalio/common';
import { InternalFailureType } from '../failure-types.js';
import { ServiceError } from '../services/errors.js';
import { evidenceOf, toApplicationFailure } from './failures.js';
import { QueryPacer } from './query-pacing.js';

/** Backoff of query network failures (spec: 1 s, 2 s, 4 s, then 4 s). */
export const QUERY_FAILURE_BACKOFF_MS = [1_000, 2_000, 4_000] as const;

export interface PollInput {
  taskId: string;
  /** Queries of this task are never closer than this (Retry-After never shortens it). */
  minIntervalMs: number;
  /** true: keep polling (through activity retries) until a final state; false: one query. */
  untilFinal: boolean;
  /** Delay before the next poll when the state is not final (default: minIntervalMs). */
  cadenceMs?: number;
}

type QueryPhase = 'review.query' | 'video.query';

/** Heartbeat details of a polling activity: consecutive network failures, for the 1/2/4 s backoff. */
interface PollProgress {
  networkFailures: number;
}

/** Heartbeat details of a create activity: what a retried attempt needs to know. */
interface CreateProgress<R> {
  taskId?: string;
  /** What the create answered besides the id (kept for the retried attempt). */
  record?: R;
  /** The previous attempt failed in a way that proves no task was created. */
  notCreated?: boolean;
}

export function createPoller() {
  const pacer = new QueryPacer();
  return async function pollOnce<T>(
    key: string,
    { minIntervalMs, untilFinal, cadenceMs }: Omit<PollInput, 'taskId'>,
    phase: QueryPhase,
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
  };
}

/** `phase` names the call in final failures (a 400 on a review submit is InvalidInput, on a create VideoRequestRejected). */
export async function createAtMostOnce<R>(
  create: () => Promise<{ taskId: string; record: R }>,
  phase: 'video.create' | 'review.submit' = 'video.create',
): Promise<{ taskId: string; record: R | undefined }> {
  const ctx = Context.current();
  const previous = ctx.info.heartbeatDetails as CreateProgress<R> | undefined;
  if (previous?.taskId) return { taskId: previous.taskId, record: previous.record };
  if (ctx.info.attempt > 1 && !previous?.notCreated) {
    throw ApplicationFailure.create({
      type: InternalFailureType.CreateAmbiguous,
      message: 'a previous create attempt ended without an answer (worker lost or timed out); a task may exist',
      nonRetryable: true,
    });
  }
  try {
    const created = await create();
    ctx.heartbeat({ taskId: created.taskId, record: created.record } satisfies CreateProgress<R>);
    return created;
  } catch (err) {
    if (err instanceof ServiceError && err.ambiguous) {
      throw ApplicationFailure.create({
        type: InternalFailureType.CreateAmbiguous,
        message: `${err.message}; not resubmitted blindly`,
        nonRetryable: true,
        details: [evidenceOf(err)],
      });
    }
    if (err instanceof ServiceError && err.retryable) ctx.heartbeat({ notCreated: true } satisfies CreateProgress<R>);
    throw toApplicationFailure(err, phase);
  }
}
