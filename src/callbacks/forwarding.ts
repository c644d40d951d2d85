// Which callbacks become signals. A signal is a billable action and four history events, so the receiver
// asks the server first (DescribeWorkflowExecution: no action, no event) and drops a callback that the run
// provably does not need, from facts the run owns: the task ids it has indexed as its own (the search
// attributes VideoTaskId and ReviewTaskIds), and whether it polls (signed into its callback URL,
// src/callback-signing.ts). Dropped:
// - a callback that says such a task is still working: it moves nothing forward (the run's RemoteTask
//   ignores it, src/workflows/remote-task.ts);
// - any callback of the video task of a run that polls it: the poll sees the same state, and a poll whose
//   answer was lost with its worker is simply sent again (no rule forbids a query after a final state).
// Everything else is forwarded: a review task's final state even when the run polls (a lost answer may
// have seen `cancelled`, after which the task is never queried, and only the callback can tell), tasks
// the run has not claimed yet (an ambiguous submit being resolved, an orphan to cancel), callbacks
// without a task id. When the run cannot be described, the callback is forwarded too: a signal too many costs an
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

export type ForwardDecision = 'forward' | 'closed' | 'still working' | 'polled';

/** What the run would not need if it had indexed the callback's task. */
function droppedOnceIndexed(kind: CallbackKind, signal: CallbackSignal, polls: boolean): ForwardDecision | undefined {
  if (signal.taskId === undefined) return undefined;
  if (stillWorking(kind, signal)) return 'still working';
  if (polls && kind === 'video') return 'polled';
  return undefined;
}

/** `polls`: the callback URL says the run polls its task (signed). */
export function forwardDecision(
  kind: CallbackKind,
  signal: CallbackSignal,
  run: Pick<WorkflowExecutionDescription, 'status' | 'typedSearchAttributes'>,
  polls = false,
): ForwardDecision {
  if (run.status.name !== 'RUNNING') return 'closed';
  const dropped = droppedOnceIndexed(kind, signal, polls);
  if (dropped === undefined) return 'forward';
  const indexed =
    kind === 'video'
      ? [run.typedSearchAttributes.get(VideoTaskId)]
      : (run.typedSearchAttributes.get(ReviewTaskIds) ?? []);
  return indexed.includes(signal.taskId) ? dropped : 'forward';
}

/** How long a callback that indexing would drop waits, when its task is not indexed yet, before a second look. */
export const STILL_WORKING_RECHECK_MS = 1_000;

/**
 * The decision for one callback, asking the server; 'forward' when the run cannot be described. A
 * callback that would be dropped once its task is indexed is decided again after `recheckMs` (0: at once).
 */
export async function decideForward(
  client: Client,
  run: { workflowId: string; runId: string; polls?: boolean },
  kind: CallbackKind,
  signal: CallbackSignal,
  recheckMs = STILL_WORKING_RECHECK_MS,
): Promise<ForwardDecision | 'not found'> {
  const polls = run.polls ?? false;
  const decide = async (): Promise<ForwardDecision | 'not found'> => {
    try {
      const described = await client.workflow.getHandle(run.workflowId, run.runId).describe();
      return forwardDecision(kind, signal, described, polls);
    } catch (err) {
      if ((err as { name?: string }).name === 'WorkflowNotFoundError') return 'not found';
      return 'forward';
    }
  };
  const first = await decide();
  if (first !== 'forward' || recheckMs <= 0 || droppedOnceIndexed(kind, signal, polls) === undefined) return first;
  await sleep(recheckMs);
  return decide();
}
