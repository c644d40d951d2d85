// ReviewThenGenerateNotification: the delivery of one notification of one job (issue 27,
// docs/webhooks.md). The job starts it once its outcome (or, opted in, a stage) is decided, abandoned
// (ParentClosePolicy ABANDON): the job returns its result at once, whatever the receiver does. One
// activity, retried by Temporal with backoff until the window (scheduleToCloseTimeout) is spent; its id is
// the `webhook-id`. Its own `progress` query says how the delivery went; given up, it fails, with the last
// attempt's error, and the Web UI shows it Failed beside a job that kept its outcome.
import type { RetryPolicy } from '@temporalio/common';
import { defineQuery, metricMeter, proxyActivities, setCurrentDetails, setHandler } from '@temporalio/workflow';
import { attemptOf, type DeliveryInput, type NotifyActivities } from '../contract/notify.js';
import type { NotificationProgress } from '../model/notify.js';
import { onFirstUse } from './metric-meters.js';

export const notificationProgressQuery = defineQuery<NotificationProgress>('progress');

export interface NotificationInput extends DeliveryInput {
  /** How long the delivery is retried: the activity's schedule-to-close time-out. */
  windowMs: number;
  jobWorkflowId: string;
}

/**
 * Every failed attempt is retried, after 1 s, 2 s, 4 s ... at most an hour apart, until the window ends
 * (Temporal does not start an attempt that could not begin before it): a 24 h window makes about 35.
 */
export const NOTIFY_RETRY: RetryPolicy = { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '1h' };
/** One attempt: the HTTP call's own deadline (15 s) with room to spare. */
const ATTEMPT_TIMEOUT_MS = 30_000;

export const NOTIFICATION_METRIC_NAMES = {
  notifications: 'rtg_notifications_total',
  latency: 'rtg_notification_latency_seconds',
} as const;

const notificationMeters = onFirstUse(() => ({
  ended: metricMeter.createCounter('rtg_notifications', '', 'Notifications ended, by event and outcome'),
  latency: metricMeter.createHistogram(
    NOTIFICATION_METRIC_NAMES.latency,
    'float',
    '',
    'From the event (workflow time) to the 2xx of its notification',
  ),
}));

/** The message of the last attempt's failure, found along the chain of causes. */
function lastAttemptError(err: unknown): string {
  let e: unknown = err;
  let first: string | undefined;
  for (let i = 0; i < 5 && e instanceof Error; i++) {
    first ??= e.message;
    if (attemptOf(e.message) !== undefined) return e.message;
    e = e.cause;
  }
  return first ?? String(err);
}

function show(p: NotificationProgress): void {
  const lines = [
    `**Notification:** ${p.event} of ${p.jobWorkflowId}`,
    `**Delivery:** ${p.state}${p.status !== undefined ? `, HTTP ${p.status}` : ''}${p.attempts > 0 ? `, ${p.attempts} attempt(s)` : ''}`,
    `**Window:** ${Math.round(p.windowMs / 1000)} s`,
    p.lastError ? `**Last error:** ${p.lastError.slice(0, 300)}` : undefined,
  ];
  setCurrentDetails(lines.filter((l) => l !== undefined).join('\n\n'));
}

export async function ReviewThenGenerateNotification(input: NotificationInput): Promise<NotificationProgress> {
  const event = input.payload.data.event;
  let progress: NotificationProgress = {
    event,
    webhookId: input.id,
    jobWorkflowId: input.jobWorkflowId,
    state: 'delivering',
    attempts: 0,
    windowMs: input.windowMs,
  };
  setHandler(notificationProgressQuery, () => progress);
  const { rtgDeliverNotification } = proxyActivities<NotifyActivities>({
    scheduleToCloseTimeout: input.windowMs,
    startToCloseTimeout: Math.min(ATTEMPT_TIMEOUT_MS, input.windowMs),
    retry: NOTIFY_RETRY,
    summary: `POST ${input.payload.type}`,
  });
  const m = notificationMeters();
  try {
    const r = await rtgDeliverNotification({ id: input.id, url: input.url, payload: input.payload });
    progress = r.delivered
      ? {
          ...progress,
          state: 'delivered',
          status: r.status,
          attempts: r.attempt,
          deliveredAt: new Date().toISOString(),
        }
      : { ...progress, state: 'refused', attempts: r.attempt, lastError: r.refused };
  } catch (err) {
    const lastError = lastAttemptError(err);
    progress = { ...progress, state: 'failed', attempts: attemptOf(lastError) ?? 0, lastError };
    m.ended.add(1, { event, outcome: 'failed' });
    show(progress);
    // Given up: the delivery workflow fails with the activity's failure (time-out, then the last error).
    throw err;
  }
  m.ended.add(1, { event, outcome: progress.state });
  if (progress.state === 'delivered')
    m.latency.record(Math.max(Date.now() - Date.parse(input.payload.timestamp), 0) / 1000, { event });
  show(progress);
  return progress;
}
