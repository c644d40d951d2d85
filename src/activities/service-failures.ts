// Client errors -> ApplicationFailure: the one mapping from what a service call threw to the failure an
// activity ends with. Final errors (validation, 400, 401) are non-retryable with the design's failure
// types; transient ones are retryable, carrying the delay the service asked for. The failures themselves
// are made by the constructors of src/contract/failures.ts; this file only chooses which.
import { ApplicationFailure } from '@temporalio/common';
import {
  generationFailed,
  invalidInput,
  reviewFailed,
  transientServiceError,
  unauthorized,
  videoRequestRejected,
  type ServiceEvidence,
} from '../contract/index.js';
import { ServiceError } from '../services/errors.js';
import { RequestValidationError } from '../model/validation.js';

type Phase = 'review.submit' | 'review.query' | 'video.create' | 'video.query' | 'video.cancel';

/** Evidence for failure details: what the service said, never a header or a secret. */
export function evidenceOf(err: ServiceError): ServiceEvidence {
  return {
    operation: err.operation,
    status: err.status,
    kind: err.kind,
    ambiguous: err.ambiguous,
    retryAfterMs: err.retryAfterMs,
    body: err.responseBody,
  };
}

/** The final failure of a call the service refused: its type says what to fix. */
function finalFailure(phase: Phase, err: ServiceError): ApplicationFailure {
  const evidence = evidenceOf(err);
  if (err.status === 401 || err.status === 403) return unauthorized(err.message, evidence);
  if (phase === 'video.create') return videoRequestRejected(err.message, evidence);
  if (phase === 'review.submit') return invalidInput(err.message, evidence);
  if (phase === 'review.query') return reviewFailed(err.message, evidence);
  return generationFailed(err.message, evidence);
}

/**
 * Translates any error thrown by a client call. `minDelayMs` is the floor of the next retry delay (the
 * minimum query interval for review queries): a Retry-After is obeyed but never shortens it.
 */
export function toApplicationFailure(
  err: unknown,
  phase: Phase,
  minDelayMs = 0,
  backoffMs?: number,
): ApplicationFailure {
  if (err instanceof ApplicationFailure) return err;
  if (err instanceof RequestValidationError) return invalidInput(err.message, { problems: err.issues });
  if (err instanceof ServiceError) {
    if (!err.retryable) return finalFailure(phase, err);
    const delay = Math.max(minDelayMs, err.retryAfterMs ?? backoffMs ?? 0);
    return transientServiceError(err.message, evidenceOf(err), delay > 0 ? delay : undefined);
  }
  // Unknown errors (bugs, unexpected exceptions): retryable, the retry policy bounds them.
  return transientServiceError(err instanceof Error ? `${phase} failed: ${err.message}` : `${phase} failed`);
}
