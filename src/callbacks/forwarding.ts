// Which callbacks become signals. A signal is a billable action and four history events, so the receiver
// asks the server first (DescribeWorkflowExecution: no action, no event) and drops a callback that the run
// provably does not need, from one documented fact the run owns: the task ids it has indexed as its own
// (the search attributes VideoTaskId and ReviewTaskIds). A callback that says such a task is still working
// moves nothing forward (the run's RemoteTask ignores it, src/workflows/remote-task.ts).
// Everything else is forwarded: every final state (a polling run needs one when a poll's answer was lost
// with its worker: it may have seen `cancelled`, after which a review task is never queried), tasks the
// run has not claimed yet (an ambiguous submit being resolved, an orphan to cancel), callbacks without a
// task id. When the run cannot be described, the callback is forwarded too: a signal too many costs an
// action, a signal lost could cost a job.
// A still-working callback of a task the run has not indexed is asked about once more a moment later:
// it is nearly always the run's own task, announced before the workflow task that indexes it has run
// (the video service calls back on every status change, `running` right after the create), and a
// still-working callback moves no job forward, so waiting costs nothing.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Client, WorkflowExecutionDescription } from '@temporalio/client';
import type { CallbackKind } from '../callback-signing.js';
import {
  ReviewTaskIds,
  VideoTaskId,
  WORKING_REVIEW_STATUSES,
  WORKING_VIDEO_STATUSES,
  type CallbackSignal,
} from '../contract/index.js';

/** Statuses that say a task is still working (every other status, or none, may need the run's attention). */
const WORKING: Record<CallbackKind, ReadonlySet<string>> = {
  video: WORKING_VIDEO_STATUSES,
  review: WORKING_REVIEW_STATUSES,
};

/** A callback naming a task that says the task is still working. */
const stillWorking = (kind: CallbackKind, signal: CallbackSignal) =>
  signal.taskId !== undefined && signal.status !== undefined && WORKING[kind].has(signal.status);

export type ForwardDecision = 'forward' | 'closed' | 'still working';

export function forwardDecision(
  kind: CallbackKind,
  signal: CallbackSignal,
  run: Pick<WorkflowExecutionDescription, 'status' | 'typedSearchAttributes'>,
): ForwardDecision {
  if (run.status.name !== 'RUNNING') return 'closed';
  const taskId = signal.taskId;
  if (taskId === undefined) return 'forward';
  if (stillWorking(kind, signal)) {
    const indexed =
      kind === 'video'
        ? [run.typedSearchAttributes.get(VideoTaskId)]
        : (run.typedSearchAttributes.get(ReviewTaskIds) ?? []);
    if (indexed.includes(taskId)) return 'still working';
  }
  return 'forward';
}

/** How long a still-working callback of a task the run has not indexed waits before it is asked about again. */
export const STILL_WORKING_RECHECK_MS = 1_000;

/**
 * The decision for one callback, asking the server; 'forward' when the run cannot be described. A
 * still-working callback that would be forwarded is decided again after `recheckMs` (0: at once).
 */
export async function decideForward(
  client: Client,
  run: { workflowId: string; runId: string },
  kind: CallbackKind,
  signal: CallbackSignal,
  recheckMs = STILL_WORKING_RECHECK_MS,
): Promise<ForwardDecision | 'not found'> {
  const decide = async (): Promise<ForwardDecision | 'not found'> => {
    try {
      return forwardDecision(kind, signal, await client.workflow.getHandle(run.workflowId, run.runId).describe());
    } catch (err) {
      if ((err as { name?: string }).name === 'WorkflowNotFoundError') return 'not found';
      return 'forward';
    }
  };
  const first = await decide();
  if (first !== 'forward' || recheckMs <= 0 || !stillWorking(kind, signal)) return first;
  await sleep(recheckMs);
  return decide();
}
