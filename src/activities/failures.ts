// Client errors -> ApplicationFailure. Final errors (validation, 400, 401) are non-retryable with the
// design's failure types; transient ones are retryable, carrying the delay the service asked for.
import { ApplicationFailure } from '@temporalio/common';
import { FailureType, InternalFailureType } from '../model/failure-types.js';
import { ServiceError } from '../services/errors.js';
import { RequestValidationError } from '../model/validation.js';

type Phase = 'review.submit' | 'review.query' | 'video.create' | 'video.query' | 'video.cancel';

/** Evidence for failure details: what the service said, never a header or a secret. */
export function evidenceOf(err: ServiceError) {
  return {
    operation: err.operation,
    status: err.status,
    kind: err.kind,
    ambiguous: err.ambiguous,
    retryAfterMs: err.retryAfterMs,
    body: err.responseBody,
  };
}

function finalTypeFor(phase: Phase, status: number | undefined): string {
  if (status === 401 || status === 403) return FailureType.Unauthorized;
  if (phase === 'video.create') return FailureType.VideoRequestRejected;
  if (phase === 'review.submit') return FailureType.InvalidInput;
  if (phase === 'review.query') return FailureType.ReviewFailed;
  return FailureType.GenerationFailed;
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
  if (err instanceof RequestValidationError) {
    return ApplicationFailure.create({
      type: FailureType.InvalidInput,
      message: err.message,
      nonRetryable: true,
      details: [{ problems: err.issues }],
    });
  }
  if (err instanceof ServiceError) {
    if (!err.retryable) {
      return ApplicationFailure.create({
        type: finalTypeFor(phase, err.status),
        message: err.message,
        nonRetryable: true,
        details: [evidenceOf(err)],
      });
    }
    const delay = Math.max(minDelayMs, err.retryAfterMs ?? backoffMs ?? 0);
    return ApplicationFailure.create({
      type: InternalFailureType.TransientServiceError,
      message: err.message,
      nonRetryable: false,
      details: [evidenceOf(err)],
      ...(delay > 0 ? { nextRetryDelay: delay } : {}),
    });
  }
  // Unknown errors (bugs, unexpected exceptions): retryable, the retry policy bounds them.
  return ApplicationFailure.create({
    type: InternalFailureType.TransientServiceError,
    message: err instanceof Error ? `${phase} failed: ${err.message}` : `${phase} failed`,
    nonRetryable: false,
  });
}

/** Removes callback addresses (they carry our signature) from records before they enter history. */
export function redactCallbackUrls<T>(value: T): T {
  if (Array.isArray(value)) return value.map(redactCallbackUrls) as T;
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [
        k,
        k === 'callback_url' && typeof v === 'string' ? '[redacted]' : redactCallbackUrls(v),
      ]),
    ) as T;
  }
  return value;
}
