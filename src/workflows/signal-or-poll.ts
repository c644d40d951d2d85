// Waiting for a remote task to finish: by callback signal or by polling, whichever comes first.
// - callbacks on: wait for a callback up to `fallbackMs`; each callback is confirmed with one query;
//   if none comes, poll at the slow `fallbackMs` cadence while still listening for callbacks.
// - callbacks off: poll at `intervalMs`.
// Polling is one activity whose retries do the loop, so history does not grow with the number of polls.
import { RetryState } from '@temporalio/common';
import { ActivityFailure, CancellationScope, condition, isCancellation, sleep, TimeoutFailure } from '@temporalio/workflow';

export interface WaitOptions<T> {
  callbacksOn: boolean;
  intervalMs: number;
  fallbackMs: number;
  deadline: number;
  /** True when a callback arrived that has not been confirmed yet. */
  callbackPending: () => boolean;
  /** Marks the pending callbacks as being confirmed now. */
  takeCallback: () => void;
  /** One query (paced by the activity). */
  confirm: () => Promise<T>;
  /** Polls until final through activity retries, at `cadenceMs`, bounded by `scheduleToCloseMs`. */
  poll: (cadenceMs: number, scheduleToCloseMs: number) => Promise<T>;
  isFinal: (t: T) => boolean;
  onObserved: (t: T) => void;
}

export class WaitTimedOut extends Error {}

/**
 * The polling activity ran out of time: either an attempt timed out, or the schedule-to-close deadline
 * passed between polls (then the cause is the last "not final yet" and the retry state says TIMEOUT).
 */
function isActivityTimeout(err: unknown): boolean {
  return err instanceof ActivityFailure && (err.cause instanceof TimeoutFailure || err.retryState === RetryState.TIMEOUT);
}

export async function waitForFinal<T>(o: WaitOptions<T>): Promise<T> {
  const remaining = () => o.deadline - Date.now();
  const pollUntilDeadline = async (cadenceMs: number) => {
    try {
      return await o.poll(cadenceMs, Math.max(remaining(), 1_000));
    } catch (err) {
      if (isActivityTimeout(err)) throw new WaitTimedOut();
      throw err;
    }
  };

  /** A confirmation that fails after its retries is not fatal: polling takes over. */
  const tryConfirm = async (): Promise<T | undefined> => {
    try {
      const confirmed = await o.confirm();
      o.onObserved(confirmed);
      return confirmed;
    } catch (err) {
      if (isCancellation(err) || !(err instanceof ActivityFailure)) throw err;
      return undefined;
    }
  };

  if (!o.callbacksOn) {
    const result = await pollUntilDeadline(o.intervalMs);
    o.onObserved(result);
    return result;
  }

  for (;;) {
    if (remaining() <= 0) throw new WaitTimedOut();
    const arrived = await condition(o.callbackPending, Math.min(o.fallbackMs, remaining()));
    if (!arrived) break;
    o.takeCallback();
    const confirmed = await tryConfirm();
    if (confirmed === undefined) break;
    if (o.isFinal(confirmed)) return confirmed;
  }

  // No callback in time: poll slowly, and switch back to confirming as soon as a callback arrives.
  for (;;) {
    if (remaining() <= 0) throw new WaitTimedOut();
    const scope = new CancellationScope();
    const polling = scope.run(() => pollUntilDeadline(o.fallbackMs));
    const winner = await Promise.race([
      polling.then((r) => ({ polled: r })),
      condition(o.callbackPending).then(() => ({ callback: true as const })),
    ]);
    if ('polled' in winner) {
      o.onObserved(winner.polled);
      return winner.polled;
    }
    scope.cancel();
    // The poll may have finished in the same instant; otherwise its cancellation is expected.
    const late = await polling.catch((err) => {
      if (isCancellation(err)) return undefined;
      throw err;
    });
    if (late !== undefined) {
      o.onObserved(late);
      return late;
    }
    o.takeCallback();
    const confirmed = await tryConfirm();
    if (confirmed !== undefined && o.isFinal(confirmed)) return confirmed;
    // A callback that did not hold up: give the service a moment before polling again.
    await sleep(Math.min(o.intervalMs, Math.max(remaining(), 0)));
  }
}
