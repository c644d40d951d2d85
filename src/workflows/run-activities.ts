// The activity proxies of one ReviewThenGenerate run: their time-outs come from the run's timing, their
// retry policies carry the services' rules (retry-policies.ts).
import { ActivityCancellationType, proxyActivities, type ActivityOptions } from '@temporalio/workflow';
import type { Activities } from '../activities/review-then-generate.js';
import type { Timing } from './input.js';
import { CONFIRM_RETRY, POLL_RETRY, SUBMIT_RETRY } from './retry-policies.js';

/** Activity proxies for one run; the per-attempt time-out comes from the run's timing. */
export function reviewThenGenerateActivities(timing: Timing) {
  const startToCloseTimeout = timing.callTimeoutMs;
  const submitting = proxyActivities<Activities>({
    startToCloseTimeout,
    retry: SUBMIT_RETRY,
  });
  const polling = (scheduleToCloseMs: number, summary: string) => {
    const options: ActivityOptions = {
      startToCloseTimeout,
      scheduleToCloseTimeout: scheduleToCloseMs,
      summary,
      retry: POLL_RETRY,
      // A poll stopped for a callback's confirming query is waited for: once the stop is confirmed, no
      // attempt of it can still query, so the run's record of its last query holds.
      cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
    };
    return proxyActivities<Activities>(options);
  };
  /** The sync review submit blocks until the review ends: its attempt may take the review's whole time-out. */
  const submittingSync = (timeoutMs: number) =>
    proxyActivities<Activities>({ startToCloseTimeout: timeoutMs, retry: SUBMIT_RETRY });
  const confirming = proxyActivities<Activities>({
    startToCloseTimeout,
    retry: CONFIRM_RETRY,
  });
  return { submitting, submittingSync, polling, confirming };
}

export type RunActivities = ReturnType<typeof reviewThenGenerateActivities>;
