// Failures as workflow code sees them, in one place: what an activity's failure means (a time-out, a poll
// stopped on request, a longer Retry-After, an ambiguous create), the policy after an ambiguous submit,
// and the mapping of whatever ended a run onto the public failure types (design: public contract).
import { RetryState } from '@temporalio/common';
import { ActivityFailure, ApplicationFailure, TimeoutFailure } from '@temporalio/workflow';
import { FailureType, InternalFailureType, type QueryTiming, type RetryAfterRaised } from '../model/failure-types.js';

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

/** When a failed query says its task may be queried next (see QueryTiming), if it says so. */
export function nextQueryAtOf(err: unknown): number | undefined {
  const details = applicationCause(err)?.details ?? [];
  const timing = [...details]
    .reverse()
    .find((d): d is QueryTiming => typeof (d as QueryTiming | null)?.nextQueryAt === 'number');
  return timing?.nextQueryAt;
}

/** The activity failed in a way its retries cannot change (a final answer of the service). */
export function isFinalFailure(err: unknown): boolean {
  return applicationCause(err)?.nonRetryable === true;
}

/**
 * The failure an activity call ended with: the cause of an ActivityFailure, or the ApplicationFailure
 * itself, which is how this SDK reports the failure of a local activity (the confirming queries).
 */
function applicationCause(err: unknown): ApplicationFailure | undefined {
  if (err instanceof ActivityFailure) return err.cause instanceof ApplicationFailure ? err.cause : undefined;
  return err instanceof ApplicationFailure ? err : undefined;
}

/** An activity call (local or not) failed, as opposed to the workflow code around it. */
export function isActivityCallFailure(err: unknown): boolean {
  return err instanceof ActivityFailure || err instanceof ApplicationFailure || err instanceof TimeoutFailure;
}

// ---- Ambiguous submits ----------------------------------------------------------------------------
// Spec: "resubmit only when none was obtained"; "duplicate submit after a time-out" fails. Nothing in the
// spec can prove that no task was made, so a batch is sent again only when the job opted in
// (`resubmitOnAmbiguity`). Without it the run waits for a callback naming the task, and fails with
// SubmitUnconfirmed if none comes.

/** How many ambiguous answers a job that opted in to resubmitting accepts before giving up. */
export const MAX_AMBIGUOUS_SUBMITS = 3;

export interface Ambiguity {
  /** The ambiguous call carried a callback address: a task it made will call back and name itself. */
  callbackSent: boolean;
  /** What the service answered (or did not), from the activity rather than Temporal's wrapper. */
  message: string;
  /** The activity's evidence: status, body, whether the answer could have been a commit. */
  evidence: unknown[];
}

/** The activity reported CreateAmbiguous (a 500, a time-out or a reset after sending): a task may exist. */
export function ambiguityOf(err: unknown): Ambiguity | undefined {
  const cause = applicationCause(err);
  if (cause?.type !== InternalFailureType.CreateAmbiguous) return undefined;
  const details = cause.details?.[0] as { callbackSent?: unknown } | undefined;
  return { callbackSent: details?.callbackSent === true, message: cause.message, evidence: [...(cause.details ?? [])] };
}

export interface AmbiguityPolicy<T> {
  ambiguity: Ambiguity;
  /** Ambiguous answers so far for this submit, this one included. */
  count: number;
  resubmitOnAmbiguity: boolean;
  /** Opted in: how long to wait for a callback before resubmitting (`createAmbiguityGraceMs`). */
  graceMs: number;
  /** Not opted in: the stage's deadline; a task that exists has called back by then. */
  deadline: number;
  /** Waits until `until` for a callback naming a task of this submit, confirmed; undefined if none came. */
  find: (until: number) => Promise<T | undefined>;
  /** The SubmitUnconfirmed failure, given why the run gave up. */
  unconfirmed: (why: string) => ApplicationFailure;
}

/** Adopts the task a callback names, or says to resubmit (opted in only), or throws SubmitUnconfirmed. */
export async function afterAmbiguousSubmit<T>(p: AmbiguityPolicy<T>): Promise<{ adopted: T } | 'resubmit'> {
  if (p.ambiguity.callbackSent) {
    const until = p.resubmitOnAmbiguity ? Date.now() + p.graceMs : p.deadline;
    const found = await p.find(until);
    if (found !== undefined) return { adopted: found };
  }
  if (!p.resubmitOnAmbiguity) {
    throw p.unconfirmed(
      p.ambiguity.callbackSent
        ? 'no callback named a task before the time-out'
        : 'no callback address was sent (the worker has no CALLBACK_PUBLIC_URL), so nothing can name the task',
    );
  }
  if (p.count >= MAX_AMBIGUOUS_SUBMITS)
    throw p.unconfirmed(`ambiguous ${p.count} times in a row; not resubmitted again`);
  return 'resubmit';
}

/** A SubmitUnconfirmed failure: what was sent, what happened, and what the caller can do. */
export function submitUnconfirmed(
  what: string,
  checkWhere: string,
  ambiguity: Ambiguity,
  why: string,
  details: Record<string, unknown>,
): ApplicationFailure {
  return ApplicationFailure.create({
    type: FailureType.SubmitUnconfirmed,
    message:
      `${what} got no clear answer (${ambiguity.message}) and ${why}; not resubmitted, since a second submit could duplicate the task. ` +
      `Check ${checkWhere} for a task made from it before starting the job again, or start it with resubmitOnAmbiguity: true to let the run resubmit`,
    nonRetryable: true,
    details: [{ ...details, callbackSent: ambiguity.callbackSent, lastError: ambiguity.message }],
  });
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
  return ApplicationFailure.create({
    type: causeType && PUBLIC_FAILURE_TYPES.has(causeType) ? causeType : fallbackType,
    message: cause?.message ?? err.message,
    nonRetryable: true,
    details: cause instanceof ApplicationFailure ? [...(cause.details ?? [])] : [],
  });
}

/** The InvalidInput failure of a run whose input breaks the rules; `problems` name each field and rule. */
export function invalidInput(summary: string, problems: unknown[]): ApplicationFailure {
  return ApplicationFailure.create({
    type: FailureType.InvalidInput,
    message: `invalid input: ${summary}`,
    nonRetryable: true,
    details: [{ problems }],
  });
}
