// The `type` of every ApplicationFailure a ReviewThenGenerate run can end with (design: public contract).
// Pure: imported by workflows, activities and callers alike.
export const FailureType = {
  InvalidInput: 'InvalidInput',
  ReviewRejected: 'ReviewRejected',
  ReviewFailed: 'ReviewFailed',
  ReviewCancelled: 'ReviewCancelled',
  ReviewTimedOut: 'ReviewTimedOut',
  VideoRequestRejected: 'VideoRequestRejected',
  Unauthorized: 'Unauthorized',
  GenerationFailed: 'GenerationFailed',
  GenerationCancelled: 'GenerationCancelled',
  GenerationExpired: 'GenerationExpired',
  GenerationTimedOut: 'GenerationTimedOut',
  /**
   * A review submit or a video create got no clear answer (500, time-out, reset) and nothing confirmed
   * whether it made a task: not resubmitted, since a second submit could duplicate it (spec: "duplicate
   * submit after a time-out"). Opt in to resubmitting with the input option `resubmitOnAmbiguity`.
   */
  SubmitUnconfirmed: 'SubmitUnconfirmed',
  /**
   * The video was generated but could not be copied to VIDEO_STORE (input option `store`): details name
   * the task and the store. The video task is never created again for it.
   */
  VideoStoreFailed: 'VideoStoreFailed',
  /**
   * A review submit or the video create waited for a slot of the provider's quota (worker setting
   * VIDEO_MAX_TASKS_IN_FLIGHT, REVIEW_MAX_TASKS_IN_FLIGHT...) longer than the job's
   * `timing.admissionTimeoutMs`: it was not sent. Details name the quota key and the wait.
   */
  AdmissionTimedOut: 'AdmissionTimedOut',
  /**
   * The job's tenant (fairnessKey) has spent its daily budget (worker settings VIDEO_DAILY_*_BY_TENANT)
   * and the job chose `onBudgetExceeded: "fail"` rather than waiting for the next day: nothing was created.
   */
  BudgetExceeded: 'BudgetExceeded',
} as const;
export type FailureType = (typeof FailureType)[keyof typeof FailureType];

/** The failure type of ReviewThenGenerateBatch's own activity (rtgReadJobsFile). */
export const BatchFailureType = { JobsFileUnreadable: 'JobsFileUnreadable' } as const;

/**
 * Internal failure types used between our activities and workflows; they never end a workflow.
 * - CreateAmbiguous: a create or an async review submit answered 500 / timed out / connection reset: a task may exist.
 * - NotFinalYet: a polling attempt saw a non-final state; the retry policy polls again.
 * - RetryAfterRaised: a query answer asked for a longer Retry-After than the run knew; the run records it.
 * - QueryAnswerLost: a query attempt vanished (worker lost) and may have seen `cancelled`; not repeated.
 */
export const InternalFailureType = {
  CreateAmbiguous: 'CreateAmbiguous',
  NotFinalYet: 'NotFinalYet',
  RetryAfterRaised: 'RetryAfterRaised',
  QueryAnswerLost: 'QueryAnswerLost',
  TransientServiceError: 'TransientServiceError',
} as const;

/** Details of a RetryAfterRaised failure: the delay the service asked for. */
export interface RetryAfterRaised {
  retryAfterMs: number;
}
