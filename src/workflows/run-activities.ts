// The activity proxies of one ReviewThenGenerate run: their time-outs come from the run's timing, their
// retry policies carry the services' rules (retry-policies.ts).
import {
  ActivityCancellationType,
  proxyActivities,
  proxyLocalActivities,
  type ActivityOptions,
} from '@temporalio/workflow';
import type { Activities } from '../contract/index.js';
import type { HistoryShape } from './history-version.js';
import type { Timing } from './input.js';
import { CONFIRM_RETRY, POLL_RETRY, SUBMIT_RETRY } from './retry-policies.js';

/** Activity proxies for one run; the per-attempt time-out comes from the run's timing. */
export function reviewThenGenerateActivities(timing: Timing, shape: HistoryShape) {
  const startToCloseTimeout = timing.callTimeoutMs;
  const submitting = proxyActivities<Activities>({
    startToCloseTimeout,
    retry: SUBMIT_RETRY,
  });
  /** `activityId`: set on the polls of a polling job (history-version.ts). */
  const polling = (scheduleToCloseMs: number, summary: string, activityId?: string) => {
    const options: ActivityOptions = {
      startToCloseTimeout,
      scheduleToCloseTimeout: scheduleToCloseMs,
      summary,
      retry: POLL_RETRY,
      // A poll stopped for a callback's confirming query is waited for: once the stop is confirmed, no
      // attempt of it can still query, so the run's record of its last query holds.
      cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
      ...(shape.v2 && activityId ? { activityId } : {}),
    };
    return proxyActivities<Activities>(options);
  };
  /** The sync review submit blocks until the review ends: its attempt may take the review's whole time-out. */
  const submittingSync = (timeoutMs: number) =>
    proxyActivities<Activities>({ startToCloseTimeout: timeoutMs, retry: SUBMIT_RETRY });
  /** Cancels of video tasks: ordinary activities, whatever the shape. */
  const cancelling = proxyActivities<Activities>({ startToCloseTimeout, retry: CONFIRM_RETRY });
  /**
   * One query after a callback. A local activity in history-v2: it runs in the workflow task that the
   * callback's signal started, so it costs one marker instead of three activity events and a workflow
   * task, and the create that follows a passed review is scheduled without a round trip.
   */
  const confirming = shape.v2
    ? proxyLocalActivities<Activities>({ startToCloseTimeout, retry: CONFIRM_RETRY })
    : cancelling;
  return { submitting, submittingSync, polling, confirming, cancelling };
}

export type RunActivities = ReturnType<typeof reviewThenGenerateActivities>;
