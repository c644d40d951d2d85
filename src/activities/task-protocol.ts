// The two protocols every remote-task activity follows (native task API and gateway entry points alike).
// - pollOnce: one query per activity attempt; a non-final state or a transient error fails the attempt
//   with the delay before the next one, so the activity's retry policy carries the loop: waiting holds no
//   worker slot and adds no history event per poll. Pacing comes from the run (`notBefore`, kept by its
//   RemoteTask) and, between attempts, from the retry timer, which the server keeps.
// - createAtMostOnce: the task id is recorded in the heartbeat details the moment it is known (unless a
//   callback will name it: recordsTaskId) and a retried attempt returns it; an outcome that may have
//   created a task is CreateAmbiguous, never retried.
//   Video creates and review submits alike (spec: no duplicate submit after a time-out).
import { Context } from '@temporalio/activity';
import { ServiceError } from '../services/errors.js';
import {
  createAmbiguous,
  LONGEST_IN_ATTEMPT_WAIT_MS,
  notFinalYet,
  queryAnswerLost,
  queryFailureReported,
  queryBackoffMs,
  retryAfterRaised,
  type PollInput,
  type QueryOutcome,
} from '../contract/index.js';
import { giveBackSlot } from './admission.js';
import { evidenceOf, toApplicationFailure } from './service-failures.js';

type QueryPhase = 'review.query' | 'video.query';

/** Heartbeat details of a query activity: what its next attempt needs to know. */
interface QueryProgress {
  /** Consecutive network failures, for the 1/2/4 s backoff. */
  networkFailures: number;
  /** The attempt that ended by reporting what it saw (only the one just before counts). */
  reportedBy?: number;
}

/** Heartbeat details of a create activity: what a retried attempt needs to know. */
interface CreateProgress<R> {
  taskId?: string;
  /** What the create answered besides the id (kept for the retried attempt). */
  record?: R;
  /** The attempt that failed in a way that proves no task was created (only the one just before counts). */
  notCreatedBy?: number;
}

function retryAfterOf(result: unknown): number | undefined {
  const v = (result as { retryAfterMs?: unknown } | null)?.retryAfterMs;
  return typeof v === 'number' && v >= 0 ? v : undefined;
}

/**
 * One query of a task per attempt, never before `notBefore`. Queries of one attempt and the next are
 * spaced by the retry timer (`nextRetryDelay`), whichever worker runs the next attempt.
 *
 * `guardLostAnswer` (review tasks: spec, stop querying once `cancelled` is returned): an attempt that ends
 * by failing first records that it did (`reportedBy`, in the heartbeat details the next attempt reads).
 * An attempt that vanished instead (its worker lost, or timed out) may have seen `cancelled`: the next one
 * does not query, and ends QueryAnswerLost; the run's RemoteTask decides (phase `unknown`).
 */
export async function pollOnce<T>(
  key: string,
  {
    minIntervalMs,
    untilFinal,
    cadenceMs,
    notBefore,
    knownRetryAfterMs,
    guardLostAnswer,
    networkFailures,
    reportNetworkFailures,
    releaseSlotWhenFinal,
  }: Omit<PollInput, 'taskId'>,
  phase: QueryPhase,
  query: () => Promise<T>,
  isFinal: (t: T) => boolean,
  /** The task is over at the provider (final), where `isFinal` also returns on other answers. */
  isOver: (t: T) => boolean = isFinal,
): Promise<T & QueryOutcome> {
  const ctx = Context.current();
  const attempt = ctx.info.attempt;
  // The count goes on from the run's record (a failure the run saw before this activity counts too).
  const previous = (ctx.info.heartbeatDetails as QueryProgress | undefined) ?? {
    networkFailures: networkFailures ?? 0,
  };
  if (guardLostAnswer && attempt > 1 && previous.reportedBy !== attempt - 1) {
    throw queryAnswerLost(`${key}: the previous query attempt ended without reporting its answer`);
  }
  /** Every failure of an attempt goes through here, so that the next attempt knows this one reported. */
  const report = (networkFailures: number) => {
    if (guardLostAnswer || networkFailures !== previous.networkFailures)
      ctx.heartbeat({ networkFailures, reportedBy: attempt } satisfies QueryProgress);
  };
  const wait = (notBefore ?? 0) - Date.now();
  if (wait > LONGEST_IN_ATTEMPT_WAIT_MS) {
    report(previous.networkFailures);
    throw notFinalYet(`${key} may not be queried for another ${wait} ms`, wait);
  }
  if (wait > 0) await ctx.sleep(wait);
  const raised = (retryAfterMs: number | undefined) =>
    knownRetryAfterMs !== undefined && retryAfterMs !== undefined && retryAfterMs > knownRetryAfterMs;
  let result: T;
  try {
    result = await query();
  } catch (err) {
    if (err instanceof ServiceError && err.retryable && raised(err.retryAfterMs)) {
      throw retryAfterRaised(`${key}: the service asked to wait ${err.retryAfterMs} ms (${err.message})`, {
        retryAfterMs: err.retryAfterMs!,
      });
    }
    if (err instanceof ServiceError && err.retryable && err.retryAfterMs === undefined && reportNetworkFailures) {
      report(previous.networkFailures);
      throw queryFailureReported(`${key}: ${err.message}`, evidenceOf(err));
    }
    if (err instanceof ServiceError && err.retryable) {
      const failures = err.retryAfterMs === undefined ? previous.networkFailures + 1 : previous.networkFailures;
      const backoff = queryBackoffMs(failures);
      report(failures);
      throw toApplicationFailure(err, phase, minIntervalMs, backoff);
    }
    report(previous.networkFailures);
    throw toApplicationFailure(err, phase);
  }
  // Spec: a Retry-After "must be obeyed when present", on a 200 that is still processing as on an error.
  const retryAfterMs = retryAfterOf(result);
  const nextDelay = Math.max(minIntervalMs, retryAfterMs ?? 0);
  if (untilFinal && !isFinal(result) && !raised(retryAfterMs)) {
    report(0);
    throw notFinalYet(`${key} is not final yet`, Math.max(cadenceMs ?? minIntervalMs, nextDelay));
  }
  if (releaseSlotWhenFinal && isOver(result) && (await giveBackSlot(releaseSlotWhenFinal)))
    return { ...result, queries: attempt, slotReleased: true };
  return { ...result, queries: attempt };
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
