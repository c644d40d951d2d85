// Retry policies shared by our workflows' activities. They carry the services' rules, so callers set
// timings per run but not these.
import type { RetryPolicy } from '@temporalio/common';
import { FailureType, InternalFailureType } from '../model/failure-types.js';

/** Submits and creates: transient errors retried with backoff; final ones and ambiguous creates never. */
export const SUBMIT_RETRY: RetryPolicy = {
  initialInterval: '1s',
  backoffCoefficient: 2,
  maximumInterval: '30s',
  maximumAttempts: 8,
  nonRetryableErrorTypes: [
    FailureType.InvalidInput,
    FailureType.Unauthorized,
    FailureType.VideoRequestRejected,
    InternalFailureType.CreateAmbiguous,
  ],
};

/**
 * Polling: a retry is the next poll, and each attempt sets its own delay (interval, Retry-After,
 * 1/2/4 s backoff); unlimited attempts, bounded by the activity's schedule-to-close time-out.
 */
export const POLL_RETRY: RetryPolicy = { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '4s' };

/** One confirming query after a callback: a few attempts, then polling takes over. */
export const CONFIRM_RETRY: RetryPolicy = { ...POLL_RETRY, maximumAttempts: 6 };
