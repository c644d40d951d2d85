// Ambiguous submits, as the workflow decides about them. Spec: "resubmit only when none was obtained";
// "duplicate submit after a time-out" fails. Nothing in the spec can prove that no task was made, so a
// batch is sent again only when the job opted in (`resubmitOnAmbiguity`). Without it the run waits for a
// callback naming the task, and fails with SubmitUnconfirmed if none comes.
import type { ApplicationFailure } from '@temporalio/workflow';
import { submitUnconfirmed } from '../contract/index.js';
import { InternalFailureType } from '../model/failure-types.js';
import { applicationCause } from './failure-reading.js';

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
  /** The stage's deadline: a task that exists has called back by then, and nothing is resubmitted after it. */
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
  // A task made now could only time out, unwatched, while it runs (and bills).
  if (Date.now() >= p.deadline) throw p.unconfirmed("the stage's time-out has passed");
  return 'resubmit';
}

/** The SubmitUnconfirmed failure of an ambiguous submit: what was sent, what happened, what to do. */
export function unconfirmedFailure(
  what: string,
  checkWhere: string,
  ambiguity: Ambiguity,
  why: string,
  details: Record<string, unknown>,
): ApplicationFailure {
  return submitUnconfirmed(
    `${what} got no clear answer (${ambiguity.message}) and ${why}; not resubmitted, since a second submit could duplicate the task. ` +
      `Check ${checkWhere} for a task made from it before starting the job again, or start it with resubmitOnAmbiguity: true to let the run resubmit`,
    { ...details, callbackSent: ambiguity.callbackSent, lastError: ambiguity.message },
  );
}
