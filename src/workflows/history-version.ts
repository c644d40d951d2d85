// The shape of a ReviewThenGenerate history, chosen once per run with `patched()` so that runs started by
// an older release replay on this code (docs/upgrading.md walks through this change as the example).
// - history-v2 (0.2.0): confirming queries are local activities (one marker instead of an activity and a
//   workflow task); the search index is written only for the working stages users filter on
//   (`reviewing` only when the start did not set it already; never the outcome, which ExecutionStatus
//   holds); polls carry the activity id `poll:<kind>:<taskId>` (pollActivityId, src/contract/), which
//   tells the callback receiver that the run polls that task and needs no signal for it.
// - without it (runs started by 0.1.0): the earlier shape, command for command.
import { patched } from '@temporalio/workflow';

export const HISTORY_V2_PATCH = 'history-v2';
/**
 * A review callback that reports its task `cancelled` is taken at its word, with no confirming query:
 * `cancelled` is final, and a query run by a workflow task that was then lost (a killed worker) cannot be
 * known to its retry, which would query a cancelled task again (spec: stop querying it). Checked only
 * when such a callback came, so other runs carry no marker.
 */
export const CANCELLED_CALLBACK_PATCH = 'review-cancelled-callback-final';

export interface HistoryShape {
  v2: boolean;
}

/** Called once, at the start of the run, before any command: the marker is its first event. */
export function historyShape(): HistoryShape {
  return { v2: patched(HISTORY_V2_PATCH) };
}
