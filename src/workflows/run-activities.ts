// The activity proxies of one ReviewThenGenerate run: their time-outs come from the run's timing, their
// retry policies carry the services' rules (retry-policies.ts).
import { ActivityCancellationType, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../contract/index.js';
import type { Timing } from '../job/input.js';
import { CONFIRM_RETRY, POLL_RETRY, SUBMIT_RETRY } from './retry-policies.js';

/** Activity proxies for one run; the per-attempt time-out comes from the run's timing. */
export function reviewThenGenerateActivities(timing: Timing) {
  const startToCloseTimeout = timing.callTimeoutMs;
  const submitting = proxyActivities<Activities>({ startToCloseTimeout, retry: SUBMIT_RETRY });
  const polling = (scheduleToCloseMs: number, summary: string) =>
    proxyActivities<Activities>({
      startToCloseTimeout,
      scheduleToCloseTimeout: scheduleToCloseMs,
      summary,
      retry: POLL_RETRY,
      // A poll stopped for a callback's confirming query is waited for: once the stop is confirmed, no
      // attempt of it can still query, so the task's pacing record holds (task-waiter.ts).
      cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
    });
  /** The sync review submit blocks until the review ends: its attempt may take the review's whole time-out. */
  const submittingSync = (timeoutMs: number) =>
    proxyActivities<Activities>({ startToCloseTimeout: timeoutMs, retry: SUBMIT_RETRY });
  /**
   * One query after a callback, and the cancels of video tasks: ordinary activities. A command schedules
   * each, so a workflow task that is retried (a signal came in while it ran, its worker was lost) never
   * sends one again, which a local activity would: a query after `cancelled`, or closer than the interval.
   */
  const confirming = proxyActivities<Activities>({ startToCloseTimeout, retry: CONFIRM_RETRY });
  return { submitting, submittingSync, polling, confirming, cancelling: confirming };
}

export type RunActivities = ReturnType<typeof reviewThenGenerateActivities>;
