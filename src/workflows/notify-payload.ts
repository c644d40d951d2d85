// The body of a job's notification (src/model/notify.ts has its schema): built in workflow code from what
// the run already holds (its result, its failure, its progress), at the moment of the event (workflow
// time). The raw task record is left out; failures keep their type, message and details, which entered
// history already redacted of callback addresses.
import { ApplicationFailure, CancelledFailure, workflowInfo } from '@temporalio/workflow';
import type { NotificationPayload, NotifyEvent } from '../model/notify.js';
import type { Progress, ReviewThenGenerateResult } from '../job/definitions.js';
import type { ReviewThenGenerateJob } from '../job/input.js';

/** What the job ended with: its result, or the failure it ends with (a CancelledFailure when cancelled). */
export interface Outcome {
  result?: ReviewThenGenerateResult;
  failure?: unknown;
}

function failureOf(err: unknown): NonNullable<NotificationPayload['data']['failure']> {
  if (err instanceof ApplicationFailure)
    return { type: err.type ?? 'Error', message: err.message, details: [...(err.details ?? [])] };
  if (err instanceof CancelledFailure) return { type: 'CancelledFailure', message: err.message, details: [] };
  return { type: err instanceof Error ? err.name : 'Error', message: String(err), details: [] };
}

export function payloadOf(
  job: ReviewThenGenerateJob,
  event: NotifyEvent,
  p: Progress,
  outcome: Outcome,
): NotificationPayload {
  const { workflowId, runId } = workflowInfo();
  const r = outcome.result;
  return {
    type: `job.${event}`,
    timestamp: new Date().toISOString(),
    data: {
      event,
      workflowId,
      businessKey: workflowId,
      runId,
      ...(job.batchId ? { batchId: job.batchId } : {}),
      stage: p.stage,
      ...(p.taskId ? { taskId: p.taskId } : {}),
      ...(r
        ? {
            result: {
              taskId: r.taskId,
              state: r.state,
              videoUrl: r.videoUrl,
              ...(r.stored ? { stored: r.stored } : {}),
              assets: r.assets,
            },
          }
        : {}),
      ...(outcome.failure !== undefined ? { failure: failureOf(outcome.failure) } : {}),
    },
  };
}
