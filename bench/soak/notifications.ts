// The notifications' verdict (issue 27): every job that ended must have notified its outcome, at least
// once. The receiver's log is read as a receiver that deduplicates by webhook-id would: a notification is
// delivered when the receiver took a copy of its id with a valid signature (checked with the package's
// verifyNotification, at the time it arrived); further copies of an id are duplicates, allowed (delivery is
// at least once) and counted. Lost (expected, never taken), a bad signature, a body whose event or outcome
// is not the job's, and an id that is no job's one notification fail the soak. Pure: everything it needs
// is passed in.
import type { NotificationPayload } from '../../src/model/notify.js';
import { verifyNotification } from '../../src/notify/signing.js';
import type { ReceivedWebhook } from 'temporal-review-video-sandbox';
import type { JobRecord } from './driver.js';

export interface NotificationProblem {
  workflowId: string;
  webhookId?: string;
  problem: 'lost' | 'bad signature' | 'wrong outcome' | 'unexpected';
  detail: string;
}

export interface NotificationVerdict {
  /** One per job that ended (a job still running at its deadline is lost already, and expects none). */
  expected: number;
  /** Expected notifications taken by the receiver with a valid signature (distinct webhook-ids). */
  delivered: number;
  lost: number;
  /** Copies of a webhook-id the receiver had already taken: at-least-once delivery, deduplicated by id. */
  duplicates: number;
  /** A notification whose id or body names another event, or a body whose failure type or task is not the job's. */
  wrongOutcome: number;
  /** Requests whose signature did not verify under NOTIFY_SECRET. */
  badSignatures: number;
  /** Ids that name no job of the run, or a second notification (another id) of one job's outcome. */
  unexpected: number;
  /** Every request the receiver got, and those its injected faults answered, by fault (`fail:503`, `duplicate` ...). */
  requests: number;
  faults: Record<string, number>;
  problems: NotificationProblem[];
}

const ID = /^(.+)\/notify\/([^/]+)\/([^/]+)$/;

/** The event a job's outcome is notified as: its failure type names a failure, CancelledFailure a cancel. */
export function outcomeEvent(outcome: string | undefined): 'succeeded' | 'failed' | 'cancelled' | undefined {
  if (outcome === undefined || outcome === 'not finished') return undefined;
  if (outcome === 'succeeded') return 'succeeded';
  return outcome === 'CancelledFailure' ? 'cancelled' : 'failed';
}

/** Jobs that ended and have no delivery of their outcome's event taken yet (no signature check: cheap, for the wait). */
export function undelivered(records: JobRecord[], received: ReceivedWebhook[]): number {
  const taken = new Set(received.filter((e) => e.taken).map((e) => e.id.replace(/\/[^/]+$/, '')));
  return records.filter((r) => {
    const event = outcomeEvent(r.outcome);
    return event !== undefined && !taken.has(`${r.job.workflowId}/notify/${event}`);
  }).length;
}

/** What the body says against how the job ended; undefined when it agrees. */
function outcomeMismatch(p: NotificationPayload, r: JobRecord, event: string): string | undefined {
  const d = p.data;
  if (d.workflowId !== r.job.workflowId) return `the body names ${d.workflowId}`;
  if (d.event !== event || p.type !== `job.${event}`) return `the body says ${p.type}/${d.event}, the job ${r.outcome}`;
  if (event === 'succeeded' && d.result?.taskId !== r.taskId)
    return `the body's result names task ${d.result?.taskId}, the job's ${r.taskId}`;
  if (event !== 'succeeded' && d.failure?.type !== r.outcome)
    return `the body's failure is ${d.failure?.type}, the job's ${r.outcome}`;
  return undefined;
}

export function notificationVerdict(
  records: JobRecord[],
  received: ReceivedWebhook[],
  secret: string,
): NotificationVerdict {
  const problems: NotificationProblem[] = [];
  const byJob = new Map(records.map((r) => [r.job.workflowId, r]));
  const faults: Record<string, number> = {};
  /** Taken, verified copies per id. */
  const takenCopies = new Map<string, number>();
  /** Distinct ids per job, by the event they name. */
  const idsOfJob = new Map<string, Map<string, Set<string>>>();
  const wrong = new Set<string>();
  let badSignatures = 0;
  let unexpected = 0;

  for (const e of received) {
    if (e.fault) {
      const label = e.fault === 'fail' ? `fail:${e.status}` : e.fault;
      faults[label] = (faults[label] ?? 0) + 1;
    }
    const [, workflowId = '', event = ''] = ID.exec(e.id) ?? [];
    let payload: NotificationPayload;
    try {
      payload = verifyNotification(e.headers, e.body, secret, { nowMs: e.at });
    } catch (err) {
      badSignatures++;
      problems.push({ workflowId, webhookId: e.id, problem: 'bad signature', detail: String(err) });
      continue;
    }
    const record = byJob.get(workflowId);
    if (!record) {
      unexpected++;
      problems.push({ workflowId, webhookId: e.id, problem: 'unexpected', detail: 'its id names no job of the run' });
      continue;
    }
    if (!e.taken) continue;
    takenCopies.set(e.id, (takenCopies.get(e.id) ?? 0) + 1);
    const events = idsOfJob.get(workflowId) ?? new Map<string, Set<string>>();
    idsOfJob.set(workflowId, events.set(event, (events.get(event) ?? new Set()).add(e.id)));
    const expected = outcomeEvent(record.outcome);
    const mismatch =
      expected === undefined
        ? undefined
        : event !== expected
          ? `notified ${event}, the job ended ${record.outcome}`
          : outcomeMismatch(payload, record, expected);
    if (mismatch && !wrong.has(e.id)) {
      wrong.add(e.id);
      problems.push({ workflowId, webhookId: e.id, problem: 'wrong outcome', detail: mismatch });
    }
  }

  let expectedCount = 0;
  let delivered = 0;
  for (const r of records) {
    const event = outcomeEvent(r.outcome);
    if (event === undefined) continue;
    expectedCount++;
    const ids = idsOfJob.get(r.job.workflowId)?.get(event);
    if (ids && ids.size > 0) {
      delivered++;
      // Another id for the same outcome is a second notification, not a retry: no receiver can merge them.
      if (ids.size > 1) {
        unexpected += ids.size - 1;
        problems.push({
          workflowId: r.job.workflowId,
          problem: 'unexpected',
          detail: `${ids.size} webhook-ids for one outcome: ${[...ids].join(', ')}`,
        });
      }
      continue;
    }
    const tried = received.filter((e) => e.id.startsWith(`${r.job.workflowId}/notify/`));
    problems.push({
      workflowId: r.job.workflowId,
      problem: 'lost',
      detail: `ended ${r.outcome}; ${tried.length ? `${tried.length} request(s) of it, none taken (${tried.map((e) => e.status).join(' ')})` : 'no request of it arrived'}`,
    });
  }

  return {
    expected: expectedCount,
    delivered,
    lost: expectedCount - delivered,
    duplicates: [...takenCopies.values()].reduce((n, copies) => n + copies - 1, 0),
    wrongOutcome: wrong.size,
    badSignatures,
    unexpected,
    requests: received.length,
    faults,
    problems,
  };
}

export function notificationsOk(v: NotificationVerdict): boolean {
  return v.lost === 0 && v.badSignatures === 0 && v.wrongOutcome === 0 && v.unexpected === 0;
}
