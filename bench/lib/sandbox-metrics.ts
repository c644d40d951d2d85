// Figures read from the sandbox's own logs (its clock): API calls per job, and the time from a callback
// being sent to the next request the sandbox receives for the same task.
import type { CallbackLogEntry, RequestLogEntry } from 'temporal-review-video-sandbox';
import { summarize, type Summary } from './stats.js';

export interface ApiCalls {
  total: number;
  perJob: number;
  byOperation: Record<string, number>;
  /** Calls made for each review task (submit + queries) and each video task (create + gets). */
  perReviewTask: Summary;
  perVideoTask: Summary;
  /** Jobs (review tasks) that needed more than the minimum of their mode. */
  errors: number;
}

export function apiCalls(requests: RequestLogEntry[], jobs: number): ApiCalls {
  const byOperation: Record<string, number> = {};
  const perReview = new Map<string, number>();
  const perVideo = new Map<string, number>();
  let errors = 0;
  for (const r of requests) {
    byOperation[r.operation] = (byOperation[r.operation] ?? 0) + 1;
    if (r.status >= 400 || r.status === 0) errors++;
    if (!r.taskId) continue;
    if (r.service === 'review') perReview.set(r.taskId, (perReview.get(r.taskId) ?? 0) + 1);
    else perVideo.set(r.taskId, (perVideo.get(r.taskId) ?? 0) + 1);
  }
  return {
    total: requests.length,
    perJob: jobs ? Math.round((requests.length / jobs) * 100) / 100 : NaN,
    byOperation,
    perReviewTask: summarize([...perReview.values()]),
    perVideoTask: summarize([...perVideo.values()]),
    errors,
  };
}

const POLLS = new Set(['review.query', 'video.get']);

/**
 * Each job's polls (review queries and video gets of its own tasks), by workflow id. A job's tasks are
 * found by its index in the burst, which its submit (image URL) and its create (prompt marker) carry as
 * `<label>/<i>`; the workflow id is `<label>-<i>` (bench/profiles.ts).
 */
export function pollsByJob(requests: RequestLogEntry[], label: string): (workflowId: string) => number {
  const index = new RegExp(`${label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/(\\d+)`);
  const jobOfTask = new Map<string, string>();
  const polls = new Map<string, number>();
  for (const r of requests) {
    if (!r.taskId) continue;
    if (POLLS.has(r.operation)) {
      polls.set(r.taskId, (polls.get(r.taskId) ?? 0) + 1);
      continue;
    }
    const i = index.exec(JSON.stringify(r.body ?? ''))?.[1];
    if (i !== undefined) jobOfTask.set(r.taskId, `${label}-${i}`);
  }
  const byJob = new Map<string, number>();
  for (const [task, job] of jobOfTask) byJob.set(job, (byJob.get(job) ?? 0) + (polls.get(task) ?? 0));
  return (workflowId) => byJob.get(workflowId) ?? 0;
}

const FINAL = new Set(['completed', 'failed', 'cancelled', 'succeeded', 'expired']);
const WORKFLOW_ID = /\/(?:callbacks|cb)\/(?:review|video)\/([^/?#]+)/;

export interface CallbackLatency {
  /** Final-state callback sent -> the confirming query of that task (review.query / video.get). */
  toConfirmMs: Summary;
  /** Review callback sent -> the video.create of the same job. */
  reviewToCreateMs: Summary;
  callbacks: {
    delivered: number;
    notDelivered: number;
    final: number;
    unmatched: number;
    answeredByFallbackPoll: number;
    reviewAnsweredByFallbackPoll: number;
  };
}

/**
 * `fallbackMs`: the jobs' callbackFallbackPollMs; a final callback whose next query came that late was
 * not acted on: the query is the safety-net poll.
 */
export function callbackLatency(
  requests: RequestLogEntry[],
  callbacks: CallbackLogEntry[],
  fallbackMs: number,
): CallbackLatency {
  const byTask = new Map<string, RequestLogEntry[]>();
  const createByWorkflow = new Map<string, RequestLogEntry>();
  for (const r of requests) {
    if (r.operation === 'review.query' || r.operation === 'video.get') {
      const list = byTask.get(r.taskId ?? '') ?? [];
      list.push(r);
      byTask.set(r.taskId ?? '', list);
    } else if (r.operation === 'video.create') {
      const url = (r.body as { callback_url?: string } | undefined)?.callback_url ?? '';
      const wf = WORKFLOW_ID.exec(url)?.[1];
      if (wf) createByWorkflow.set(wf, r);
    }
  }
  const toConfirm: number[] = [];
  const toCreate: number[] = [];
  let delivered = 0;
  let final = 0;
  let unmatched = 0;
  let byFallback = 0;
  let reviewByFallback = 0;
  for (const cb of callbacks) {
    if (cb.outcome !== 'delivered') continue;
    delivered++;
    if (!FINAL.has(cb.status)) continue;
    final++;
    const next = (byTask.get(cb.taskId) ?? []).find((r) => r.at >= cb.at);
    if (next) {
      toConfirm.push(next.at - cb.at);
      if (next.at - cb.at >= fallbackMs * 0.9) {
        byFallback++;
        if (cb.kind === 'review') reviewByFallback++;
      }
    } else unmatched++;
    if (cb.kind === 'review') {
      const wf = WORKFLOW_ID.exec(cb.url)?.[1];
      const create = wf ? createByWorkflow.get(wf) : undefined;
      if (create && create.at >= cb.at) toCreate.push(create.at - cb.at);
    }
  }
  return {
    toConfirmMs: summarize(toConfirm),
    reviewToCreateMs: summarize(toCreate),
    callbacks: {
      delivered,
      notDelivered: callbacks.length - delivered,
      final,
      unmatched,
      answeredByFallbackPoll: byFallback,
      reviewAnsweredByFallbackPoll: reviewByFallback,
    },
  };
}
