// History events per job, by event type, and billable actions per job, by kind, from a sample of finished
// runs' histories.
import type { Client } from '@temporalio/client';
import { costOf } from '../../test/support/history-cost.js';

export interface HistorySample {
  sampled: number;
  eventsPerJob: { min: number; max: number; mean: number };
  /** Event type -> count per job (averaged over the sample). */
  byType: Record<string, number>;
  /**
   * Sampled jobs whose review callback reached the workflow before, or in the same workflow task as,
   * the result of the review submit (the workflow then does not know the task id yet).
   */
  reviewCallbackBeforeSubmitResult: number;
  /** Billable actions per job as Temporal Cloud counts them (test/support/history-cost.ts). */
  cost?: SampleCost;
}

export interface SampleCost {
  actionsPerJob: { min: number; max: number; mean: number };
  /** Kind (start, activity attempts, local activities, signals, timers, ...) -> actions per job (mean). */
  byKind: Record<string, number>;
  /**
   * Polling jobs: the sampled jobs' own polls (review queries and video gets in the sandbox's log), and
   * their actions less those polls: each poll is one activity attempt, the rest is the cost of the job.
   */
  pollsPerJob?: number;
  actionsBeyondPolls?: { min: number; max: number; mean: number };
}

type Attrs = Record<string, unknown> | undefined;
const num = (v: unknown) => Number(String(v ?? NaN));

/** True when the first review callback signal was delivered no later than the submit activity's result. */
export function reviewCallbackRacedSubmit(events: Array<Record<string, unknown>>): boolean {
  let submitScheduled: number | undefined;
  let completedAt: number | undefined;
  let signalAt: number | undefined;
  events.forEach((e, i) => {
    const scheduled = e.activityTaskScheduledEventAttributes as Attrs;
    if (scheduled && (scheduled.activityType as Attrs)?.name === 'rtgSubmitReview' && submitScheduled === undefined)
      submitScheduled = num(e.eventId);
    const completed = e.activityTaskCompletedEventAttributes as Attrs;
    if (completed && submitScheduled !== undefined && num(completed.scheduledEventId) === submitScheduled)
      completedAt ??= i;
    const signaled = e.workflowExecutionSignaledEventAttributes as Attrs;
    if (signaled && signaled.signalName === 'reviewCallback') signalAt ??= i;
  });
  if (signalAt === undefined || completedAt === undefined) return false;
  if (signalAt < completedAt) return true;
  // Same workflow task: no WorkflowTaskStarted between the result and the signal.
  return !events.slice(completedAt, signalAt).some((e) => e.workflowTaskStartedEventAttributes);
}

/** The event's type, from the name of its attributes field (e.g. activityTaskScheduledEventAttributes). */
function eventTypeName(event: Record<string, unknown>): string {
  for (const [k, v] of Object.entries(event)) {
    if (v && k.endsWith('EventAttributes'))
      return k.replace(/EventAttributes$/, '').replace(/^./, (c) => c.toUpperCase());
  }
  return 'Unknown';
}

const range = (xs: number[]) => ({
  min: xs.length ? Math.min(...xs) : NaN,
  max: xs.length ? Math.max(...xs) : NaN,
  mean: xs.length ? Math.round((xs.reduce((a, b) => a + b, 0) / xs.length) * 100) / 100 : NaN,
});

/** Sums per job -> means per job, two decimals. */
function perJob(sums: Record<string, number>, jobs: number): Record<string, number> {
  return Object.fromEntries(Object.entries(sums).map(([k, v]) => [k, Math.round((v / Math.max(1, jobs)) * 100) / 100]));
}

/** `polls`: a polling job's own polls, by workflow id; given, actions beyond the polls are counted too. */
export async function sampleHistories(
  client: Client,
  workflowIds: string[],
  k: number,
  polls?: (workflowId: string) => number,
): Promise<HistorySample> {
  const step = Math.max(1, Math.floor(workflowIds.length / k));
  const ids = workflowIds.filter((_, i) => i % step === 0).slice(0, k);
  const counts: number[] = [];
  const actions: number[] = [];
  const beyond: number[] = [];
  const pollCounts: number[] = [];
  const byType: Record<string, number> = {};
  const byKind: Record<string, number> = {};
  let raced = 0;
  for (const id of ids) {
    const history = await client.workflow.getHandle(id).fetchHistory();
    const events = (history.events ?? []) as unknown as Array<Record<string, unknown>>;
    counts.push(events.length);
    if (reviewCallbackRacedSubmit(events)) raced++;
    for (const e of events) {
      const t = eventTypeName(e);
      byType[t] = (byType[t] ?? 0) + 1;
    }
    const cost = costOf(history);
    actions.push(cost.actions);
    for (const [kind, n] of Object.entries(cost.byKind)) byKind[kind] = (byKind[kind] ?? 0) + n;
    if (polls) {
      pollCounts.push(polls(id));
      beyond.push(cost.actions - pollCounts.at(-1)!);
    }
  }
  return {
    sampled: ids.length,
    eventsPerJob: range(counts),
    byType: perJob(byType, ids.length),
    reviewCallbackBeforeSubmitResult: raced,
    cost: {
      actionsPerJob: range(actions),
      byKind: perJob(byKind, ids.length),
      ...(polls ? { pollsPerJob: range(pollCounts).mean, actionsBeyondPolls: range(beyond) } : {}),
    },
  };
}
