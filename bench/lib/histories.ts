// History events per job, by event type, from a sample of finished runs' histories.
import type { Client } from '@temporalio/client';

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

export async function sampleHistories(client: Client, workflowIds: string[], k: number): Promise<HistorySample> {
  const step = Math.max(1, Math.floor(workflowIds.length / k));
  const ids = workflowIds.filter((_, i) => i % step === 0).slice(0, k);
  const counts: number[] = [];
  const byType: Record<string, number> = {};
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
  }
  for (const t of Object.keys(byType)) byType[t] = Math.round((byType[t]! / Math.max(1, ids.length)) * 100) / 100;
  return {
    sampled: ids.length,
    eventsPerJob: {
      min: counts.length ? Math.min(...counts) : NaN,
      max: counts.length ? Math.max(...counts) : NaN,
      mean: counts.length ? Math.round((counts.reduce((a, b) => a + b, 0) / counts.length) * 100) / 100 : NaN,
    },
    byType,
    reviewCallbackBeforeSubmitResult: raced,
  };
}
