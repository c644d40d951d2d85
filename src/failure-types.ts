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
} as const;
export type FailureType = (typeof FailureType)[keyof typeof FailureType];

/**
 * Internal failure types used between our activities and workflows; they never end a workflow.
 * - CreateAmbiguous: a create or an async review submit answered 500 / timed out / connection reset: a task may exist.
 * - NotFinalYet: a polling attempt saw a non-final state; the retry policy polls again.
 */
export const InternalFailureType = {
  CreateAmbiguous: 'CreateAmbiguous',
  NotFinalYet: 'NotFinalYet',
  TransientServiceError: 'TransientServiceError',
} as const;
