// Every ApplicationFailure the package raises is made here, by one constructor per failure type: the
// public ones a run can end with (FailureType, design: public contract), the batch's, and the internal
// ones between our activities and workflows (InternalFailureType). Messages, details and retryability
// are part of the contract (callers read them, histories hold them): change them here or nowhere. The
// details' shapes are zod schemas (src/model/job-schemas.ts), the source of their JSON Schemas too.
// Pure: workflows (the run's failures) and activities (service errors, mapped in
// src/activities/service-failures.ts) call the same constructors.
import type { z } from 'zod';
import { ApplicationFailure, ApplicationFailureCategory, type Duration } from '@temporalio/common';
import { BatchFailureType, FailureType, InternalFailureType, type RetryAfterRaised } from '../model/failure-types.js';
import type {
  gatewayTaskEvidenceSchema,
  rejectedItemSchema,
  reviewTaskEvidenceSchema,
  serviceEvidenceSchema,
  videoTaskEvidenceSchema,
} from '../model/job-schemas.js';

/** What a service answered, as a failure's evidence: never a header or a secret. */
export type ServiceEvidence = z.infer<ReturnType<typeof serviceEvidenceSchema>>;

/** A review task that ended without passing. */
export type ReviewTaskEvidence = z.infer<ReturnType<typeof reviewTaskEvidenceSchema>>;

/** A video task that ended without a video. */
export type VideoTaskEvidence = z.infer<ReturnType<typeof videoTaskEvidenceSchema>>;

/** A task of a gateway entry point (GenerateAndPoll) that ended without a result. */
export type GatewayTaskEvidence = z.infer<ReturnType<typeof gatewayTaskEvidenceSchema>>;

/** An item of a review batch that did not pass (ReviewRejected lists them across batches). */
export type RejectedItem = z.infer<ReturnType<typeof rejectedItemSchema>>;

interface Options {
  nonRetryable: boolean;
  /** The failure's details; absent = none at all (not an empty list). */
  details?: unknown[];
  nextRetryDelay?: Duration;
  category?: ApplicationFailureCategory;
}

/** The one place that calls ApplicationFailure.create. */
function make(type: string | undefined, message: string, o: Options): ApplicationFailure {
  return ApplicationFailure.create({
    type,
    message,
    nonRetryable: o.nonRetryable,
    ...(o.details ? { details: o.details } : {}),
    ...(o.nextRetryDelay !== undefined ? { nextRetryDelay: o.nextRetryDelay } : {}),
    ...(o.category !== undefined ? { category: o.category } : {}),
  });
}

/** A final failure with one details object, or none. */
const final = (type: FailureType, message: string, details?: object) =>
  make(type, message, { nonRetryable: true, ...(details ? { details: [details] } : {}) });

// ---- Public failures (FailureType) ----------------------------------------------------------------

/** A public failure rebuilt from another failure's message and details (see asPublicFailure). */
export function publicFailure(type: FailureType, message: string, details: unknown[]): ApplicationFailure {
  return make(type, message, { nonRetryable: true, details });
}

export function invalidInput(
  message: string,
  details?: { problems: unknown[] } | { endpoint: string; entryPoint: string } | ServiceEvidence,
): ApplicationFailure {
  return final(FailureType.InvalidInput, message, details);
}

/** The InvalidInput failure of a run whose input breaks the rules; `problems` name each field and rule. */
export function invalidRunInput(summary: string, problems: unknown[]): ApplicationFailure {
  return invalidInput(`invalid input: ${summary}`, { problems });
}

export function reviewRejected(items: RejectedItem[]): ApplicationFailure {
  const listed = items.map((r) => `${r.url} (${r.error_code ?? 'no code'}: ${r.error_message ?? 'no message'})`);
  return final(FailureType.ReviewRejected, `review rejected ${items.length} item(s): ${listed.join('; ')}`, {
    items,
  });
}

export function reviewFailed(message: string, details: ReviewTaskEvidence | ServiceEvidence): ApplicationFailure {
  return final(FailureType.ReviewFailed, message, details);
}

export function reviewCancelled(evidence: ReviewTaskEvidence): ApplicationFailure {
  const message = `review task ${evidence.reviewTaskId} was cancelled by the review service; not resubmitted`;
  return final(FailureType.ReviewCancelled, message, evidence);
}

export function reviewTimedOut(reviewTaskId: string, timeoutMs: number): ApplicationFailure {
  return final(FailureType.ReviewTimedOut, `review task ${reviewTaskId} not final after ${timeoutMs} ms`, {
    reviewTaskId,
  });
}

export function videoRequestRejected(message: string, evidence: ServiceEvidence): ApplicationFailure {
  return final(FailureType.VideoRequestRejected, message, evidence);
}

export function unauthorized(message: string, evidence: ServiceEvidence): ApplicationFailure {
  return final(FailureType.Unauthorized, message, evidence);
}

type GenerationEvidence = VideoTaskEvidence | GatewayTaskEvidence;

export function generationFailed(message: string, details: GenerationEvidence | ServiceEvidence): ApplicationFailure {
  return final(FailureType.GenerationFailed, message, details);
}

export function generationCancelled(message: string, evidence: GenerationEvidence): ApplicationFailure {
  return final(FailureType.GenerationCancelled, message, evidence);
}

export function generationExpired(message: string, evidence: GenerationEvidence): ApplicationFailure {
  return final(FailureType.GenerationExpired, message, evidence);
}

export function generationTimedOut(message: string, details: { taskId: string }): ApplicationFailure {
  return final(FailureType.GenerationTimedOut, message, details);
}

export function admissionTimedOut(
  message: string,
  details: { quotaKey: string; waitedMs: number },
): ApplicationFailure {
  return final(FailureType.AdmissionTimedOut, message, details);
}

export function budgetExceeded(
  message: string,
  details: { quotaKey: string; fairnessKey: string },
): ApplicationFailure {
  return final(FailureType.BudgetExceeded, message, details);
}

/** What was sent and what happened are in `message`; `details` name the stage and the requests. */
export function submitUnconfirmed(message: string, details: Record<string, unknown>): ApplicationFailure {
  return final(FailureType.SubmitUnconfirmed, message, details);
}

export function videoStoreFailed(
  message: string,
  details: { taskId: string } & Record<string, unknown>,
): ApplicationFailure {
  return final(FailureType.VideoStoreFailed, message, details);
}

// ---- The batch's own failure ----------------------------------------------------------------------

/** The jobs file cannot be read; retryable only when the cause may pass (not a missing file). */
export function jobsFileUnreadable(message: string, nonRetryable = true): ApplicationFailure {
  return make(BatchFailureType.JobsFileUnreadable, message, { nonRetryable });
}

// ---- Internal failures (InternalFailureType): between our activities and workflows ----------------

/** A create or an async submit got no clear answer: a task may exist. Never retried by the activity. */
export function createAmbiguous(message: string, details: Record<string, unknown>): ApplicationFailure {
  return make(InternalFailureType.CreateAmbiguous, message, { nonRetryable: true, details: [details] });
}

/** A poll saw no final state yet (or must wait): the retry policy polls again after `nextRetryDelay`. */
export function notFinalYet(message: string, nextRetryDelay: number): ApplicationFailure {
  // Expected on every poll: benign failures are logged at debug level, not as warnings.
  return make(InternalFailureType.NotFinalYet, message, {
    nonRetryable: false,
    category: ApplicationFailureCategory.BENIGN,
    nextRetryDelay,
  });
}

/** A query answer asked for a longer Retry-After than the run knew: the poll ends so the run records it. */
export function retryAfterRaised(message: string, details: RetryAfterRaised): ApplicationFailure {
  return make(InternalFailureType.RetryAfterRaised, message, {
    nonRetryable: true,
    category: ApplicationFailureCategory.BENIGN,
    details: [details],
  });
}

/**
 * A query's transient failure that ends its poll so that the run counts it (PollInput.reportNetworkFailures):
 * the run, not the activity's retries, then paces the next query.
 */
export function queryFailureReported(message: string, evidence: ServiceEvidence): ApplicationFailure {
  return make(InternalFailureType.TransientServiceError, message, {
    nonRetryable: true,
    category: ApplicationFailureCategory.BENIGN,
    details: [evidence],
  });
}

/** A failure a retry may cure: what the service said, and the delay it asked for (`nextRetryDelay`). */
export function transientServiceError(
  message: string,
  evidence?: ServiceEvidence,
  nextRetryDelay?: number,
): ApplicationFailure {
  return make(InternalFailureType.TransientServiceError, message, {
    nonRetryable: false,
    ...(evidence ? { details: [evidence] } : {}),
    ...(nextRetryDelay !== undefined ? { nextRetryDelay } : {}),
  });
}

/** A query attempt vanished with its answer (task-protocol.ts, guardLostAnswer): the run decides. */
export function queryAnswerLost(message: string): ApplicationFailure {
  return make(InternalFailureType.QueryAnswerLost, message, { nonRetryable: true });
}
