// What one run costs, counted from its history: events, and billable actions by kind as Temporal Cloud
// counts them (a start; each activity attempt, retries included; each signal; each timer; each search
// attribute upsert; a continue-as-new, child start or marker).
import type { temporal } from '@temporalio/proto';

type Event = temporal.api.history.v1.IHistoryEvent;

export interface RunCost {
  events: number;
  actions: number;
  byKind: Record<string, number>;
}

export function costOf(history: { events?: Event[] | null }): RunCost {
  const events = history.events ?? [];
  const byKind: Record<string, number> = {};
  const add = (kind: string, n = 1) => (byKind[kind] = (byKind[kind] ?? 0) + n);
  for (const e of events) {
    if (e.workflowExecutionStartedEventAttributes) add('start');
    // Every attempt is an action; the started event of the last one carries how many there were.
    if (e.activityTaskStartedEventAttributes)
      add('activity attempts', e.activityTaskStartedEventAttributes.attempt ?? 1);
    if (e.workflowExecutionSignaledEventAttributes) add('signals');
    if (e.timerStartedEventAttributes) add('timers');
    if (e.upsertWorkflowSearchAttributesEventAttributes) add('search-attribute upserts');
    if (e.markerRecordedEventAttributes) add('markers');
    if (e.startChildWorkflowExecutionInitiatedEventAttributes) add('child starts');
    if (e.workflowExecutionContinuedAsNewEventAttributes) add('continue-as-new');
  }
  return { events: events.length, actions: Object.values(byKind).reduce((a, b) => a + b, 0), byKind };
}
