// Ambiguous answers of calls that create something remotely (a video task, a review task): the spec says
// "resubmit only when no task id was obtained", so the stages look for one before sending again.
import { ActivityFailure, ApplicationFailure } from '@temporalio/workflow';
import { InternalFailureType } from '../failure-types.js';

/** How many ambiguous answers (each followed by a look for the task that found none) before giving up. */
export const MAX_AMBIGUOUS_SUBMITS = 3;

/** The activity reported CreateAmbiguous: a 500, a time-out or a reset after sending; a task may exist. */
export function isAmbiguousSubmit(err: unknown): boolean {
  return err instanceof ActivityFailure && err.cause instanceof ApplicationFailure && err.cause.type === InternalFailureType.CreateAmbiguous;
}

/** The activity's own message (what the service answered), rather than Temporal's wrapper. */
export function causeMessage(err: unknown): string {
  if (err instanceof Error && err.cause instanceof Error) return err.cause.message;
  return err instanceof Error ? err.message : String(err);
}
