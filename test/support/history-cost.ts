// What one run costs, counted from its history: events, and billable actions by kind as Temporal Cloud
// counts them (docs.temporal.io/cloud/actions): a start; each activity attempt, retries included; the
// local activities of one workflow task together; each signal; each update accepted; each timer; each
// search-attribute upsert except the TemporalChangeVersion one that `patched()` writes; a continue-as-new
// or child start. A patch marker is not an action. Shared by the tests and the benchmark's history sample
// (bench/lib/histories.ts), so that both count billable actions the same way.
import type { temporal } from '@temporalio/proto';

type Event = temporal.api.history.v1.IHistoryEvent;

export interface RunCost {
  events: number;
  actions: number;
  byKind: Record<string, number>;
}

function onlyChangeVersion(e: Event): boolean {
  const fields = Object.keys(e.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields ?? {});
  return fields.length > 0 && fields.every((f) => f === 'TemporalChangeVersion');
}

export function costOf(history: { events?: Event[] | null }): RunCost {
  const events = history.events ?? [];
  const byKind: Record<string, number> = {};
  const add = (kind: string, n = 1) => (byKind[kind] = (byKind[kind] ?? 0) + n);
  /** The workflow task each local-activity marker was recorded by: one action per task. */
  const localActivityTasks = new Set<string>();
  let lastTaskCompleted = '';
  for (const e of events) {
    if (e.workflowTaskCompletedEventAttributes) lastTaskCompleted = String(e.eventId);
    if (e.workflowExecutionStartedEventAttributes) add('start');
    // Every attempt is an action; the started event of the last one carries how many there were.
    if (e.activityTaskStartedEventAttributes)
      add('activity attempts', e.activityTaskStartedEventAttributes.attempt ?? 1);
    if (e.markerRecordedEventAttributes?.markerName === 'core_local_activity') {
      if (!localActivityTasks.has(lastTaskCompleted)) add('local activities');
      localActivityTasks.add(lastTaskCompleted);
    }
    if (e.workflowExecutionSignaledEventAttributes) add('signals');
    if (e.workflowExecutionUpdateAcceptedEventAttributes) add('updates');
    if (e.timerStartedEventAttributes) add('timers');
    if (e.upsertWorkflowSearchAttributesEventAttributes && !onlyChangeVersion(e)) add('search-attribute upserts');
    if (e.startChildWorkflowExecutionInitiatedEventAttributes) add('child starts');
    if (e.workflowExecutionContinuedAsNewEventAttributes) add('continue-as-new');
  }
  return { events: events.length, actions: Object.values(byKind).reduce((a, b) => a + b, 0), byKind };
}
