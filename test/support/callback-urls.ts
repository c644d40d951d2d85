// Signed callback URLs as a worker would build them, for tests that post to the receiver themselves.
import {
  buildCallbackUrl,
  callbackExpiry,
  type CallbackKind,
  type CallbackSecrets,
} from '../../src/callback-signing.js';

/** A run: a handle from `client.workflow.start` (its first run) or an explicit workflow and run id. */
export type RunRef = { workflowId: string; firstExecutionRunId: string } | { workflowId: string; runId: string };

/** The URL a worker signing with `secret` gives the services for `run`, valid for an hour unless told. */
export function callbackUrlFor(
  base: string,
  secret: CallbackSecrets,
  kind: CallbackKind,
  run: RunRef,
  expiresAt = callbackExpiry(Date.now() + 60 * 60_000),
): string {
  const runId = 'runId' in run ? run.runId : run.firstExecutionRunId;
  return buildCallbackUrl(base, secret, { kind, workflowId: run.workflowId, runId, expiresAt });
}
