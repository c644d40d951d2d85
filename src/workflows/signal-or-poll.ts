// Waiting for a remote task to finish: by callback signal or by polling, whichever comes first.
// - callbacks on: wait for a callback up to `fallbackMs`; each callback is confirmed with one query;
//   if none comes, poll at the slow `fallbackMs` cadence while still listening for callbacks.
// - callbacks off: poll at `intervalMs`.
// Polling is one activity whose retries do the loop, so history does not grow with the number of polls.
// Every query is paced from the run's own record (see RunState.queryPacing), so the minimum interval and
// every Retry-After hold across workers.
import { CancellationScope, condition, isCancellation, sleep } from '@temporalio/workflow';
import type { RetryAfterRaised } from '../model/failure-types.js';
import { isActivityCallFailure, isActivityTimeout, isStoppedActivity, retryAfterRaisedOf } from './failure-reading.js';

export interface WaitOptions<T> {
  callbacksOn: boolean;
  intervalMs: number;
  fallbackMs: number;
  deadline: number;
  /** True when a callback arrived that has not been confirmed yet. */
  callbackPending: () => boolean;
  /** Marks the pending callbacks as being confirmed now. */
  takeCallback: () => void;
  /** One query. */
  confirm: () => Promise<T>;
  /**
   * Polls until final through activity retries, at `cadenceMs`, bounded by `scheduleToCloseMs`; returns
   * early (not final) when an answer asked for a longer Retry-After than the run knew. `fallback`: the
   * slow poll of a job that waits for callbacks (false: the job polls).
   */
  poll: (cadenceMs: number, scheduleToCloseMs: number, fallback: boolean) => Promise<T>;
  isFinal: (t: T) => boolean;
  /** Every answer the run sees (records its pacing and progress). */
  onObserved: (t: T) => void;
  /** A query ended in an error asking for a longer Retry-After: record it. */
  onRetryAfter: (r: RetryAfterRaised) => void;
  /** A query activity ended without an answer (failed: `err`; or a poll stopped for a callback): record it. */
  onQueryWithoutAnswer: (err?: unknown) => void;
}

export class WaitTimedOut extends Error {}

export async function waitForFinal<T>(o: WaitOptions<T>): Promise<T> {
  const remaining = () => o.deadline - Date.now();

  /** One polling activity; undefined when it ended early to report a longer Retry-After. */
  const pollUntilFinal = async (cadenceMs: number): Promise<T | undefined> => {
    try {
      const polled = await o.poll(cadenceMs, Math.max(remaining(), 1_000), o.callbacksOn);
      o.onObserved(polled);
      return o.isFinal(polled) ? polled : undefined;
    } catch (err) {
      const raised = retryAfterRaisedOf(err);
      if (raised) {
        o.onRetryAfter(raised);
        return undefined;
      }
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
      if (isCancellation(err) || !isActivityCallFailure(err)) throw err;
      const raised = retryAfterRaisedOf(err);
      if (raised) o.onRetryAfter(raised);
      else o.onQueryWithoutAnswer(err);
      return undefined;
    }
  };

  if (!o.callbacksOn) {
    for (;;) {
      if (remaining() <= 0) throw new WaitTimedOut();
      const final = await pollUntilFinal(o.intervalMs);
      if (final !== undefined) return final;
    }
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
    const polling = scope.run(() => pollUntilFinal(o.fallbackMs));
    const winner = await Promise.race([
      polling.then((r) => ({ polled: r })),
      condition(o.callbackPending).then(() => ({ callback: true as const })),
    ]);
    if ('polled' in winner) {
      if (winner.polled !== undefined) return winner.polled;
      continue;
    }
    scope.cancel();
    // Waits until the poll has stopped (WAIT_CANCELLATION_COMPLETED). It may have finished in the same
    // instant; otherwise it ends cancelled, or with its attempt's own failure once the stop was requested.
    const late = await polling.catch((err) => {
      if (isCancellation(err) || isStoppedActivity(err)) return undefined;
      throw err;
    });
    if (late !== undefined) return late;
    o.onQueryWithoutAnswer();
    o.takeCallback();
    const confirmed = await tryConfirm();
    if (confirmed !== undefined && o.isFinal(confirmed)) return confirmed;
    // A callback that did not hold up: give the service a moment before polling again.
    await sleep(Math.min(o.intervalMs, Math.max(remaining(), 0)));
  }
}
