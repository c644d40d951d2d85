// The two protocols every remote-task activity follows (native task API and gateway entry points alike).
// - pollOnce: one query per activity attempt; a non-final state or a transient error fails the attempt
//   with the delay before the next one, so the activity's retry policy carries the loop: waiting holds no
//   worker slot and adds no history event per poll.
// - createAtMostOnce: the task id is recorded in the heartbeat details the moment it is known (unless a
//   callback will name it: recordsTaskId) and a retried attempt returns it; an outcome that may have
//   created a task is CreateAmbiguous, never retried.
//   Video creates and review submits alike (spec: no duplicate submit after a time-out).
import { Context } from '@temporalio/activity';
import type { RetryAfterRaised } from '../model/failure-types.js';
import { ServiceError } from '../services/errors.js';
import {
  createAmbiguous,
  notFinalYet,
  retryAfterRaised,
  withQueryTiming,
  type PollInput,
  type QueryOutcome,
} from '../contract/index.js';
import { nextQueryAllowedHere, recordQueryHere } from './query-spacing.js';
import { evidenceOf, toApplicationFailure } from './service-failures.js';

/** Backoff of query network failures (spec: 1 s, 2 s, 4 s, then 4 s). */
export const QUERY_FAILURE_BACKOFF_MS = [1_000, 2_000, 4_000] as const;

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
  /** The attempt that failed in a way that proves no task was created (only the one just before counts). */
  notCreatedBy?: number;
}

/** A wait for `notBefore` up to this long is slept in the attempt; a longer one is left to the retry timer. */
const LONGEST_IN_ATTEMPT_WAIT_MS = 5_000;

function retryAfterOf(result: unknown): number | undefined {
  const v = (result as { retryAfterMs?: unknown } | null)?.retryAfterMs;
  return typeof v === 'number' && v >= 0 ? v : undefined;
}

/**
 * The network failures before this attempt, for the 1/2/4 s backoff: kept in the heartbeat details of an
 * activity; a local activity (the confirming query, history-v2) has none, and its earlier attempts all
 * failed, so it counts them.
 */
function progressOf(ctx: Context): PollProgress {
  if (ctx.info.isLocal) return { networkFailures: ctx.info.attempt - 1 };
  return (ctx.info.heartbeatDetails as PollProgress | undefined) ?? { networkFailures: 0 };
}

function record(ctx: Context, progress: PollProgress): void {
  if (!ctx.info.isLocal) ctx.heartbeat(progress);
}

/**
 * One query of a task per attempt, never before `notBefore`. Queries of one attempt and the next are
 * spaced by the retry timer (`nextRetryDelay`), which the server keeps: the interval holds whichever
 * worker runs the next attempt.
 */
export async function pollOnce<T>(
  key: string,
  { minIntervalMs, untilFinal, cadenceMs, notBefore, knownRetryAfterMs }: Omit<PollInput, 'taskId'>,
  phase: QueryPhase,
  query: () => Promise<T>,
  isFinal: (t: T) => boolean,
): Promise<T & QueryOutcome> {
  const ctx = Context.current();
  const previous = progressOf(ctx);
  const wait = Math.max(notBefore ?? 0, nextQueryAllowedHere(key)) - Date.now();
  if (wait > LONGEST_IN_ATTEMPT_WAIT_MS) {
    throw notFinalYet(`${key} may not be queried for another ${wait} ms`, wait);
  }
  if (wait > 0) await ctx.sleep(wait);
  const raised = (retryAfterMs: number | undefined) =>
    knownRetryAfterMs !== undefined && retryAfterMs !== undefined && retryAfterMs > knownRetryAfterMs;
  let result: T;
  try {
    result = await query();
  } catch (err) {
    const retryAfter = err instanceof ServiceError ? (err.retryAfterMs ?? 0) : 0;
    recordQueryHere(key, Date.now() + Math.max(minIntervalMs, retryAfter));
    // A failed query still tells when the task may be queried next (withQueryTiming, in its details): the
    // workflow's clock stands still while a local activity runs in its workflow task, so the workflow could
    // not tell when that query was made.
    if (err instanceof ServiceError && err.retryable && raised(err.retryAfterMs)) {
      const details: RetryAfterRaised = {
        retryAfterMs: err.retryAfterMs!,
        nextQueryAt: Date.now() + Math.max(minIntervalMs, err.retryAfterMs!),
      };
      throw retryAfterRaised(`${key}: the service asked to wait ${err.retryAfterMs} ms (${err.message})`, details);
    }
    if (err instanceof ServiceError && err.retryable) {
      const failures = err.retryAfterMs === undefined ? previous.networkFailures + 1 : previous.networkFailures;
      const backoff = QUERY_FAILURE_BACKOFF_MS[Math.min(failures, QUERY_FAILURE_BACKOFF_MS.length) - 1] ?? 0;
      const failure = toApplicationFailure(err, phase, minIntervalMs, backoff);
      record(ctx, { networkFailures: failures });
      throw withQueryTiming(failure, { nextQueryAt: Date.now() + Math.max(minIntervalMs, err.retryAfterMs ?? 0) });
    }
    throw withQueryTiming(toApplicationFailure(err, phase), { nextQueryAt: Date.now() + minIntervalMs });
  }
  // Spec: a Retry-After "must be obeyed when present", on a 200 that is still processing as on an error.
  const retryAfterMs = retryAfterOf(result);
  const nextDelay = Math.max(minIntervalMs, retryAfterMs ?? 0);
  recordQueryHere(key, Date.now() + nextDelay);
  if (previous.networkFailures > 0) record(ctx, { networkFailures: 0 });
  if (untilFinal && !isFinal(result) && !raised(retryAfterMs)) {
    throw notFinalYet(`${key} is not final yet`, Math.max(cadenceMs ?? minIntervalMs, nextDelay));
  }
  return { ...result, queries: ctx.info.attempt, nextQueryAt: Date.now() + nextDelay };
}

/** `phase` names the call in final failures (a 400 on a review submit is InvalidInput, on a create VideoRequestRejected). */
export async function createAtMostOnce<R>(
  create: () => Promise<{ taskId: string; record: R }>,
  phase: 'video.create' | 'review.submit' = 'video.create',
  /** Added to the details of CreateAmbiguous, e.g. whether a callback address was sent. */
  ambiguityDetails: Record<string, unknown> = {},
  /** Record the task id in the heartbeat details; false when a callback will name the task instead. */
  recordTaskId = true,
): Promise<{ taskId: string; record: R | undefined }> {
  const ctx = Context.current();
  const previous = ctx.info.heartbeatDetails as CreateProgress<R> | undefined;
  if (previous?.taskId) return { taskId: previous.taskId, record: previous.record };
  // A marker left by an older attempt says nothing about the attempt just before, which may have sent.
  if (ctx.info.attempt > 1 && previous?.notCreatedBy !== ctx.info.attempt - 1) {
    throw createAmbiguous(
      'a previous create attempt ended without an answer (worker lost or timed out); a task may exist',
      { ...ambiguityDetails },
    );
  }
  try {
    const created = await create();
    if (recordTaskId) ctx.heartbeat({ taskId: created.taskId, record: created.record } satisfies CreateProgress<R>);
    return created;
  } catch (err) {
    if (err instanceof ServiceError && err.ambiguous) {
      throw createAmbiguous(`${err.message}; not resubmitted blindly`, { ...evidenceOf(err), ...ambiguityDetails });
    }
    if (err instanceof ServiceError && err.retryable) {
      ctx.heartbeat({ notCreatedBy: ctx.info.attempt } satisfies CreateProgress<R>);
    }
    throw toApplicationFailure(err, phase);
  }
}
