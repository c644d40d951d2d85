// Errors of the client helpers: each says what happened and what the caller can do, and carries the data
// a program needs (problems, the existing run) so the CLI can map it to an exit code.
import type { ValidationIssue } from '../model/validation.js';

/** The input was refused before anything was sent to Temporal: no workflow exists for it. */
export class InvalidJobInputError extends Error {
  override name = 'InvalidJobInputError';
  constructor(
    readonly problems: ValidationIssue[],
    what = 'job input',
  ) {
    super(`invalid ${what}, nothing was started: ${problems.map((p) => `${p.field}: ${p.rule}`).join('; ')}`);
  }
}

/**
 * The business key already names a run started with a different input (or of another workflow type).
 * The existing run is left alone; use another key for a different job.
 */
export class BusinessKeyConflictError extends Error {
  override name = 'BusinessKeyConflictError';
  constructor(
    readonly workflowId: string,
    readonly runId: string | undefined,
    reason: string,
  ) {
    super(
      `business key ${workflowId} is already used by run ${runId ?? '(unknown)'} ${reason}; choose another key for a different job`,
    );
  }
}
