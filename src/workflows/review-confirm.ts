// The confirming query of a review task that a callback named: one at a time per task and paced
// (RunState.queryInTurn), except that a task a burst of callbacks reported cancelled is not queried again
// (spec: stop querying a cancelled task; callback-burst.ts says why the burst's word is enough).
import type { ReviewTaskSummary } from '../activities/review-then-generate.js';
import { cancelledByCallbacks } from './callback-burst.js';
import type { RunState } from './run-state.js';

export function confirmReviewTask(
  run: RunState,
  taskId: string,
  minIntervalMs: number,
  summary: string,
): Promise<ReviewTaskSummary> {
  const key = `review:${taskId}`;
  if (run.burst.reportedCancelled(key)) return Promise.resolve(cancelledByCallbacks(taskId));
  return run.queryInTurn(key, (pacing) =>
    run.acts.confirming.rtgQueryReviewTask.executeWithOptions({ summary }, [
      { taskId, minIntervalMs, untilFinal: false, ...pacing },
    ]),
  );
}
