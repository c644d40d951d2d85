// The confirming query of a review task that a callback named: one at a time per task and paced
// (RunState.queryInTurn), except that a task a callback reported cancelled is not queried (spec: stop
// querying a cancelled task): a burst's word always (callback-burst.ts), a single callback's from the
// patch CANCELLED_CALLBACK_PATCH on (history-version.ts says why).
import { patched } from '@temporalio/workflow';
import type { ReviewTaskSummary } from '../contract/index.js';
import { cancelledByCallbacks } from './callback-burst.js';
import { CANCELLED_CALLBACK_PATCH } from './history-version.js';
import type { RunState } from './run-state.js';

export function confirmReviewTask(
  run: RunState,
  taskId: string,
  minIntervalMs: number,
  summary: string,
): Promise<ReviewTaskSummary> {
  const key = `review:${taskId}`;
  const cancelled =
    run.burst.reportedCancelled(key) || (run.burst.calledBackCancelled(key) && patched(CANCELLED_CALLBACK_PATCH));
  if (cancelled) return Promise.resolve(cancelledByCallbacks(taskId));
  return run.queryInTurn(key, (pacing) =>
    run.acts.confirming.rtgQueryReviewTask.executeWithOptions({ summary }, [
      { taskId, minIntervalMs, untilFinal: false, ...pacing },
    ]),
  );
}
