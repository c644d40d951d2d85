// Runs the steps of one RemoteTask (remote-task.ts) with Temporal until the task is final: a timer or a
// callback while it waits; one ordinary activity per confirming query (scheduled by a command, so a
// retried workflow task never sends it again); polling as one activity whose retries do the loop, stopped
// (and waited for) when a callback needs a query. Every answer and failure becomes an event of the task;
// the task alone decides what comes next.
import { CancellationScope, condition, isCancellation } from '@temporalio/workflow';
import {
  isActivityCallFailure,
  isActivityTimeout,
  isAnswerLost,
  isStoppedActivity,
  isReportedQueryFailure,
  queryRetryAfterOf,
} from './failure-reading.js';
import { LONGEST_IN_ATTEMPT_WAIT_MS, type HeldQuotaSlot, type QueryOutcome } from '../contract/index.js';
import type { SlotHandOff } from './admission/run-slots.js';
import type { RemoteTask } from './remote-task.js';

/** The queries of one task, as activities, and how to read their answers (`observe`: progress). */
export interface TaskQueries<T> extends QueryReading<T> {
  /** One query, not before `notBefore` (epoch ms). */
  confirm(pacing: QueryPacing): Promise<T>;
  /** Polls until final through activity retries, bounded by `scheduleToCloseMs`. */
  poll(pacing: QueryPacing, scheduleToCloseMs: number): Promise<T>;
}

export interface QueryPacing {
  notBefore: number;
  /** The longest Retry-After the task knows: a poll that meets a longer one ends to report it. */
  knownRetryAfterMs: number;
  /** The task's backoff step: the query's own retries go on from it. */
  networkFailures: number;
  /** A poll the run may stop for a callback ends on a network failure to report it (the step is the task's). */
  reportNetworkFailures?: boolean;
  /** The quota slot the task holds, given back by the query that reads it final (QueryReading.slot). */
  releaseSlotWhenFinal?: HeldQuotaSlot;
}

/** The final status (or `timed out`) and the last answer, absent when the final word was a callback's. */
export interface WaitOutcome<T> {
  status: string;
  answer?: T;
}

/** How one query's answer reads, and who sees it. */
export interface QueryReading<T> {
  statusOf(answer: T): string;
  retryAfterOf(answer: T): number | undefined;
  observe(answer: T): void;
  /** The quota slot the task holds, if any: its queries give it back when they read the task final. */
  slot?: SlotHandOff;
}

/** What one query ended with: its answer, or the failure (already an event of the task). */
export type QueryResult<T> = { answer: T } | { failed: unknown };

/**
 * One query of `task`, paced by its record (not before its `notBefore`, knowing its longest Retry-After),
 * its answer or failure applied to it as an event. Every query of a remote task goes through here or
 * through a poll of waitUntilFinal, so its RemoteTask paces every read of it, named or not.
 */
export async function queryOnce<T>(
  task: RemoteTask,
  r: QueryReading<T>,
  query: (pacing: QueryPacing) => Promise<T>,
): Promise<QueryResult<T>> {
  const { notBefore, retryAfterMs: knownRetryAfterMs, networkFailures } = task.pacing;
  const pacing = { notBefore, knownRetryAfterMs, networkFailures, ...slotToGiveBack(r) };
  task.apply({ type: 'querySent' });
  try {
    const answer = await query(pacing);
    applyAnswer(task, r, answer);
    return { answer };
  } catch (err) {
    if (isCancellation(err) || !isActivityCallFailure(err)) throw err;
    applyFailure(task, err);
    return { failed: err };
  }
}

/** The slot a query gives back if it reads the task final (the provider then no longer counts it). */
function slotToGiveBack(r: QueryReading<unknown>): { releaseSlotWhenFinal?: HeldQuotaSlot } {
  const held = r.slot?.held();
  return held ? { releaseSlotWhenFinal: held } : {};
}

function applyAnswer<T>(task: RemoteTask, r: QueryReading<T>, answer: T): void {
  if ((answer as QueryOutcome).slotReleased) r.slot?.released();
  r.observe(answer);
  const retryAfterMs = r.retryAfterOf(answer);
  task.apply({
    type: 'answered',
    status: r.statusOf(answer),
    at: Date.now(),
    ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
  });
}

/** A query that failed: its answer lost with its worker, or refused (with the Retry-After it met, if any). */
function applyFailure(task: RemoteTask, err: unknown): void {
  if (isAnswerLost(err)) return task.apply({ type: 'answerLost', at: Date.now() });
  const retryAfterMs = queryRetryAfterOf(err);
  task.apply({ type: 'queryFailed', at: Date.now(), ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) });
}

export async function waitUntilFinal<T>(
  task: RemoteTask,
  q: TaskQueries<T>,
  deadline: number,
): Promise<WaitOutcome<T>> {
  let answer: T | undefined;
  // A poll the run may stop for a callback reports every wait it would do, so the confirming query after
  // the stop is still paced by the task (Retry-After: a longer one ends it; a network failure ends it).
  const pacing = (notBefore: number): QueryPacing => ({
    notBefore,
    knownRetryAfterMs: task.pacing.retryAfterMs,
    networkFailures: task.pacing.networkFailures,
    ...(task.waitsForCallbacks ? { reportNetworkFailures: true } : {}),
    ...slotToGiveBack(q),
  });
  const answered = (t: T) => {
    answer = t;
    applyAnswer(task, q, t);
  };
  /** A poll that ended without an answer: lost with its worker, out of time, or failed. */
  const unanswered = (err: unknown) => {
    if (isCancellation(err) || !isActivityCallFailure(err)) throw err;
    // A poll runs until the stage's deadline: its time-out is the task's.
    if (!isAnswerLost(err) && isActivityTimeout(err)) return task.apply({ type: 'timedOut' });
    // A poll's final failure (the task is gone, a 401) ends the wait; one that reports something goes on.
    if (!isAnswerLost(err) && !isReportedQueryFailure(err)) throw err;
    applyFailure(task, err);
  };

  for (;;) {
    const step = task.next();
    if (step.step === 'done') return { status: step.status, ...(answer !== undefined ? { answer } : {}) };
    if (Date.now() >= deadline) {
      task.apply({ type: 'timedOut' });
      continue;
    }
    if (step.step === 'query') {
      // A confirming query's failure lets polling on (its RemoteTask has paced the next query).
      const result = await queryOnce(task, q, (p) => q.confirm(p));
      if ('answer' in result) answer = result.answer;
      continue;
    }
    // Waiting: for a callback until the fallback poll is due; polling, straight to the poll unless it is
    // due later than its attempt would wait (then a timer: an attempt that queries nothing is no poll).
    const seen = task.changes;
    const pollAt = Math.min(step.pollAt ?? deadline, deadline);
    const waitHere = step.forCallback ? pollAt > Date.now() : pollAt - Date.now() > LONGEST_IN_ATTEMPT_WAIT_MS;
    if (waitHere && (await condition(() => task.changes !== seen, pollAt - Date.now()))) continue;
    // The timer can win the race against a callback that came in the same activation: look again.
    if (step.pollAt === undefined || Date.now() >= deadline || task.changes !== seen) continue;
    await pollStoppable(task, q, pacing(Math.max(step.pollAt, task.pacing.notBefore)), deadline, answered, unanswered);
  }
}

/**
 * One polling activity, stopped as soon as the task no longer needs it: it became final meanwhile, or a
 * callback needs a query (jobs that wait for callbacks). The stop is waited for
 * (WAIT_CANCELLATION_COMPLETED): once it is confirmed no attempt of the poll can still query.
 */
async function pollStoppable<T>(
  task: RemoteTask,
  q: TaskQueries<T>,
  pacing: QueryPacing,
  deadline: number,
  answered: (t: T) => void,
  unanswered: (err: unknown) => void,
): Promise<void> {
  task.apply({ type: 'querySent' });
  const scope = new CancellationScope();
  const polling = scope.run(() => q.poll(pacing, Math.max(deadline - Date.now(), 1_000)));
  const watch = new CancellationScope();
  const stopWanted = watch.run(() =>
    condition(() => task.phase === 'final' || (task.waitsForCallbacks && task.callbackPending)),
  );
  const first = await Promise.race([
    polling.then(
      (t) => ({ t }),
      (err: unknown) => ({ err }),
    ),
    stopWanted.then(() => ({ stop: true as const })),
  ]);
  watch.cancel();
  stopWanted.catch(() => undefined);
  let outcome: { t: T } | { err: unknown };
  if ('stop' in first) {
    scope.cancel();
    // It may have finished in the same instant; otherwise it ends cancelled, or with its attempt's own
    // failure once the stop was requested.
    outcome = await polling.then(
      (t) => ({ t }),
      (err: unknown) => ({ err }),
    );
    if ('err' in outcome && (isCancellation(outcome.err) || isStoppedActivity(outcome.err))) {
      if (CancellationScope.current().consideredCancelled) throw outcome.err;
      return task.apply({ type: 'stopped', at: Date.now() });
    }
  } else outcome = first;
  if ('t' in outcome) return answered(outcome.t);
  unanswered(outcome.err);
}
