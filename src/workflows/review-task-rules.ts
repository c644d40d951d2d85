// The spec's rules for a review task (Limits; States: stop querying once `cancelled` is returned), read
// by every RemoteTask of a review task: a batch's, and one a callback named before a batch claimed it.
import { isFinalReviewStatus, WORKING_REVIEW_STATUSES } from '../contract/index.js';
import type { ReviewThenGenerateJob } from '../job/input.js';
import type { RemoteTaskRules } from './remote-task.js';

export function reviewTaskRules(job: ReviewThenGenerateJob): RemoteTaskRules {
  const t = job.timing;
  return {
    minIntervalMs: t.reviewMinQueryIntervalMs,
    pollIntervalMs: t.reviewMinQueryIntervalMs,
    fallbackMs: Math.max(t.callbackFallbackPollMs, t.reviewMinQueryIntervalMs),
    callbacks: job.callbacks && job.review?.mode !== 'sync',
    cancelledStopsQueries: true,
    isFinal: isFinalReviewStatus,
    isWorking: (s) => WORKING_REVIEW_STATUSES.has(s),
  };
}
