// Failures as workflow code reads them: what an activity's failure means (a time-out, a poll stopped on
// request, a longer Retry-After, a final answer of the service), and how whatever ended a run is shown
// as one of the public failure types (design: public contract). Failures are made in one place,
// src/contract/failures.ts; this file only reads them.
import { RetryState } from '@temporalio/common';
import { ActivityFailure, ApplicationFailure, TimeoutFailure } from '@temporalio/workflow';
import { publicFailure } from '../contract/index.js';
import { FailureType, InternalFailureType, type RetryAfterRaised } from '../model/failure-types.js';

// ---- What an activity failure means --------------------------------------------------------------

/**
 * The activity ran out of time: either an attempt timed out, or its schedule-to-close deadline passed
 * between polls (then the cause is the last "not final yet" and the retry state says TIMEOUT). An attempt
 * that ended after the activity was asked to stop is not a time-out of the wait.
 */
export function isActivityTimeout(err: unknown): boolean {
  if (isStoppedActivity(err)) return false;
  return (
    err instanceof ActivityFailure && (err.cause instanceof TimeoutFailure || err.retryState === RetryState.TIMEOUT)
  );
}

/** An attempt that ended after its activity was asked to stop is not retried: the server says so. */
export function isStoppedActivity(err: unknown): boolean {
  return err instanceof ActivityFailure && err.retryState === RetryState.CANCEL_REQUESTED;
}

export function retryAfterRaisedOf(err: unknown): RetryAfterRaised | undefined {
  const cause = applicationCause(err);
  return cause?.type === InternalFailureType.RetryAfterRaised ? (cause.details?.[0] as RetryAfterRaised) : undefined;
}

/**
 * The Retry-After a failed query met, whatever ended it: a longer one than the run knew (RetryAfterRaised),
 * or the one its last attempt was refused with once its retries ran out (the transient failure's
 * evidence). Undefined: no Retry-After came, so the failure counts for the backoff.
 */
export function queryRetryAfterOf(err: unknown): number | undefined {
  const raised = retryAfterRaisedOf(err);
  if (raised) return raised.retryAfterMs;
  const cause = applicationCause(err);
  if (cause?.type !== InternalFailureType.TransientServiceError) return undefined;
  const v = (cause.details?.[0] as { retryAfterMs?: unknown } | undefined)?.retryAfterMs;
  return typeof v === 'number' && v >= 0 ? v : undefined;
}

/**
 * A poll ended to report what the run must pace by: a longer Retry-After (RetryAfterRaised), or a network
 * failure (a transient failure made final on purpose, PollInput.reportNetworkFailures).
 */
export function isReportedQueryFailure(err: unknown): boolean {
  if (retryAfterRaisedOf(err)) return true;
  const cause = applicationCause(err);
  return cause?.type === InternalFailureType.TransientServiceError && cause.nonRetryable === true;
}

/** A query attempt vanished with its answer (QueryAnswerLost): the task's RemoteTask decides. */
export function isAnswerLost(err: unknown): boolean {
  return applicationCause(err)?.type === InternalFailureType.QueryAnswerLost;
}

/** The activity failed in a way its retries cannot change (a final answer of the service). */
export function isFinalFailure(err: unknown): boolean {
  return applicationCause(err)?.nonRetryable === true;
}

/**
 * The failure an activity call ended with: the cause of an ActivityFailure, or an ApplicationFailure that
 * reached the workflow unwrapped (as a local activity's did; the package has none left).
 */
export function applicationCause(err: unknown): ApplicationFailure | undefined {
  if (err instanceof ActivityFailure) return err.cause instanceof ApplicationFailure ? err.cause : undefined;
  return err instanceof ApplicationFailure ? err : undefined;
}

/** An activity call failed, as opposed to the workflow code around it. */
export function isActivityCallFailure(err: unknown): boolean {
  return err instanceof ActivityFailure || err instanceof ApplicationFailure || err instanceof TimeoutFailure;
}

// ---- The public failure of a run ------------------------------------------------------------------

const PUBLIC_FAILURE_TYPES = new Set<string>(Object.values(FailureType));

/**
 * Callers see one ApplicationFailure whose type is in the public contract, not the activity wrapper: an
 * activity's final failure keeps its type and evidence; anything else (retries exhausted, time-outs) is
 * reported as `fallbackType`, the failure of the stage it happened in.
 */
export function asPublicFailure(err: unknown, fallbackType: FailureType): unknown {
  if (err instanceof ApplicationFailure && err.type && PUBLIC_FAILURE_TYPES.has(err.type)) return err;
  if (!(err instanceof ActivityFailure) && !(err instanceof ApplicationFailure)) return err;
  const cause = err instanceof ActivityFailure ? err.cause : err;
  const causeType = cause instanceof ApplicationFailure ? cause.type : undefined;
  return publicFailure(
    causeType && PUBLIC_FAILURE_TYPES.has(causeType) ? (causeType as FailureType) : fallbackType,
    cause?.message ?? err.message,
    cause instanceof ApplicationFailure ? [...(cause.details ?? [])] : [],
  );
}
