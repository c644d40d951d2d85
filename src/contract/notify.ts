// The contract of a job's outgoing webhooks (issue 27, docs/webhooks.md) between the workflows and the
// activities: where a job's notifications go (asked at its start with its other needs, job-needs.ts), the
// delivery activity, what they take and give, and the id of each delivery (its
// workflow id, also its Standard Webhooks `webhook-id`). Pure: bundled into the workflow sandbox.
import type { NotificationPayload, NotifyEvent } from '../model/notify.js';

/** Where a job's notifications go: its own `notify.url`, or the worker's NOTIFY_URL (never in history). */
export interface NotifyTarget {
  /** `job`: `notify.url`, in the job's input. `worker`: NOTIFY_URL, read by the delivering worker. */
  source: 'job' | 'worker';
  events: NotifyEvent[];
  windowMs: number;
}

/** The job's notify need (JobNeeds.notify): its `notify.url` (absent: the worker's NOTIFY_URL) and `notify.windowMs`. */
export interface NotifyTargetInput {
  url?: string | undefined;
  windowMs?: number | undefined;
}

/**
 * The worker's answer: the target, or why the job's `notify` is refused, naming the field (a private
 * address without ALLOW_PRIVATE_URLS, no URL on a worker without NOTIFY_URL, or no NOTIFY_SECRET to sign).
 */
export type NotifyTargetResult =
  { ok: true; target: Omit<NotifyTarget, 'events'> } | { ok: false; problem: { field: string; rule: string } };

export interface DeliveryInput {
  /** The `webhook-id`: the delivery workflow's id, the same for every attempt. */
  id: string;
  /** The job's `notify.url`; absent: the worker's NOTIFY_URL. */
  url?: string | undefined;
  payload: NotificationPayload;
}

/** A 2xx from the receiver, or a refusal before any call (no URL, a private one, no secret). */
export type DeliveryResult =
  { delivered: true; status: number; attempt: number } | { delivered: false; refused: string; attempt: number };

export interface NotifyActivities {
  /** One attempt of one signed POST; a failed attempt throws `attempt N: why`, and the retry policy retries. */
  rtgDeliverNotification(input: DeliveryInput): Promise<DeliveryResult>;
}

/** The workflow type that delivers one notification (a child of the job, abandoned when the job ends). */
export const NOTIFICATION_WORKFLOW_TYPE = 'ReviewThenGenerateNotification';

/**
 * The id of the delivery of one event of one job: the job's workflow id, the event's key (the event; for a
 * stage, `stage-<stage>-<n>`, the nth time the run reached it), and the first run id of the job (a business
 * key started again after a failure is a new job, and is notified again). Temporal refuses a second
 * workflow with this id, so a reset or a retried workflow task never sends an event twice.
 */
export function notificationWorkflowId(workflowId: string, firstRunId: string, key: string): string {
  return `${workflowId}/notify/${key}/${firstRunId}`;
}

/** `attempt N: ...`, the message of a failed delivery attempt: the attempt it was. */
export function attemptOf(message: string): number | undefined {
  const m = /^attempt (\d+):/.exec(message);
  return m ? Number(m[1]) : undefined;
}
