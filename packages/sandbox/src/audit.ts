// Checks a request log (the sandbox's, or a crafted one) against the spec rules a log can show. It reads
// what the client saw: the answers recorded in `response` / `retryAfter` (unless marked `clientGone`) tell
// it which tasks were cancelled, completed, which Asset:// addresses were approved and which addresses
// were signed downstream URLs.
import { authViolations, AUTH_RULES } from './audit-auth.js';
import { BACKOFF_RULE, backoffViolations } from './audit-backoff.js';
import { QUOTA_RETRY_AFTER_RULE, quotaRetryAfterViolations } from './audit-quota.js';
import {
  DUPLICATE_CREATE_RULE,
  DUPLICATE_SUBMIT_RULE,
  duplicateViolations,
  type ResubmitAuditOptions,
} from './audit-resubmit.js';
import { notBeforeOf } from './retry-after-at.js';
import type { RequestLogEntry, Violation } from './types.js';
import { assetAddress } from './validation.js';

export interface AuditOptions extends ResubmitAuditOptions {
  minQueryIntervalMs: number;
}

/** Rule names reported in `Violation.rule`. */
export const AUDIT_RULES = {
  ...AUTH_RULES,
  queryInterval: 'review.query-interval',
  retryAfter: 'review.retry-after',
  backoff: BACKOFF_RULE,
  queryAfterCancel: 'review.query-after-cancel',
  resubmitAfterCancel: 'review.resubmit-after-cancel',
  downstreamUrl: 'video.downstream-url',
  assetNotApproved: 'video.asset-not-approved',
  createBeforeReview: 'video.create-before-review',
  duplicateCreate: DUPLICATE_CREATE_RULE,
  duplicateSubmit: DUPLICATE_SUBMIT_RULE,
  quotaRetryAfter: QUOTA_RETRY_AFTER_RULE,
} as const;

type ReviewState = 'pending' | 'completed' | 'failed' | 'cancelled';

export function auditRequestLog(entries: RequestLogEntry[], opts: AuditOptions): Violation[] {
  const out: Violation[] = [];
  const flag = (rule: string, e: RequestLogEntry, detail: string) => out.push({ rule, seq: e.seq, detail });

  const lastQuery = new Map<string, number>();
  const retryNotBefore = new Map<string, number>();
  const taskUrls = new Map<string, string[]>();
  const taskState = new Map<string, ReviewState>();
  /** Source URL -> the state of the latest review task it was submitted in. */
  const sourceState = new Map<string, { taskId: string; state: ReviewState; approved?: boolean }>();
  const assets = new Map<string, { approved: boolean; taskId: string }>();
  const downstream = new Set<string>();

  const observe = (response: unknown) => {
    const r = asRecord(response);
    const taskId = typeof r?.task_id === 'string' ? r.task_id : undefined;
    const status = r?.status;
    if (!taskId || (status !== 'completed' && status !== 'failed' && status !== 'cancelled')) return;
    taskState.set(taskId, status);
    for (const url of taskUrls.get(taskId) ?? []) {
      if (sourceState.get(url)?.taskId === taskId) sourceState.set(url, { taskId, state: status });
    }
    if (status !== 'completed') return;
    for (const item of arrayOf(asRecord(r?.result)?.items)) {
      const it = asRecord(item);
      const approved = it?.submit_review_status === 1;
      const address = typeof it?.asset_url === 'string' ? assetAddress(it.asset_url) : undefined;
      if (address !== undefined) assets.set(address, { approved, taskId });
      if (typeof it?.downstream_final_url === 'string' && it.downstream_final_url !== '')
        downstream.add(it.downstream_final_url);
      if (typeof it?.source_url === 'string') sourceState.set(it.source_url, { taskId, state: 'completed', approved });
    }
  };

  for (const e of [...entries].sort((a, b) => a.seq - b.seq)) {
    const ok = e.status >= 200 && e.status < 300;
    // An answer the client never received (it had given up) tells it nothing: no state, no Retry-After.
    const seen = e.clientGone !== true;

    if (e.operation === 'review.submitAsync' || e.operation === 'review.submitSync') {
      const body = asRecord(e.body);
      const urls = stringsOf(body?.asset_url_list ?? body?.images);
      for (const url of urls) {
        const prior = sourceState.get(url);
        if (prior?.state === 'cancelled') {
          flag(
            AUDIT_RULES.resubmitAfterCancel,
            e,
            `${url} was in review task ${prior.taskId}, which was cancelled; do not resubmit by default`,
          );
        }
      }
      const taskId = asRecord(e.response)?.task_id;
      if (ok && typeof taskId === 'string') {
        taskUrls.set(taskId, urls);
        for (const url of urls) sourceState.set(url, { taskId, state: 'pending' });
        if (seen) observe(e.response);
        // A sync answer given before the review ended names a task to query: its Retry-After binds too.
        if (seen && e.retryAfter !== undefined) retryNotBefore.set(taskId, notBeforeOf(e, e.retryAfter));
      }
    }

    if (e.operation === 'review.query' && e.taskId !== undefined) {
      const taskId = e.taskId;
      if (taskState.get(taskId) === 'cancelled') {
        flag(AUDIT_RULES.queryAfterCancel, e, `review task ${taskId} was already reported cancelled; stop querying it`);
      }
      const last = lastQuery.get(taskId);
      if (last !== undefined && e.at - last < opts.minQueryIntervalMs) {
        flag(
          AUDIT_RULES.queryInterval,
          e,
          `query of review task ${taskId} ${e.at - last} ms after the previous one (minimum ${opts.minQueryIntervalMs} ms)`,
        );
      }
      const notBefore = retryNotBefore.get(taskId);
      if (notBefore !== undefined && e.at < notBefore) {
        flag(
          AUDIT_RULES.retryAfter,
          e,
          `query of review task ${taskId} ${notBefore - e.at} ms before the Retry-After allowed it`,
        );
      }
      lastQuery.set(taskId, e.at);
      // Retry-After binds on a 200 (a task still processing) as much as on a 429/503.
      if (seen && (ok || e.status === 429 || e.status === 503) && e.retryAfter !== undefined) {
        retryNotBefore.set(taskId, notBeforeOf(e, e.retryAfter));
      }
      if (ok && seen) observe(e.response);
    }

    // The native create's content items; on the other entry points, any URL anywhere in the body (each
    // vendor shape names its media fields differently): the same rules hold for whatever creates a task.
    const media =
      e.operation === 'video.create'
        ? mediaUrlsOf(e.body)
        : e.gateway === 'create' || e.gateway === 'sync'
          ? urlsIn(e.body)
          : [];
    for (const url of media) {
      const address = assetAddress(url); // `asset://` is the same address: a scheme is case-insensitive
      if (downstream.has(url) || looksSigned(url)) {
        flag(AUDIT_RULES.downstreamUrl, e, `${url} is a downstream_final_url (expiring); use the item's asset_url`);
      } else if (address !== undefined) {
        const asset = assets.get(address);
        if (!asset)
          flag(
            AUDIT_RULES.assetNotApproved,
            e,
            `${url} was not seen approved in a completed review result before this create`,
          );
        else if (!asset.approved)
          flag(
            AUDIT_RULES.assetNotApproved,
            e,
            `${url} did not pass review (submit_review_status 0) in task ${asset.taskId}`,
          );
      } else {
        const source = sourceState.get(url);
        if (source && source.state !== 'completed') {
          flag(
            AUDIT_RULES.createBeforeReview,
            e,
            `${url} is under review in task ${source.taskId}, last seen ${source.state}`,
          );
        } else if (source?.approved === false) {
          flag(AUDIT_RULES.assetNotApproved, e, `${url} did not pass review in task ${source.taskId}`);
        }
      }
    }
  }
  return [
    ...authViolations(entries),
    ...out,
    ...backoffViolations(entries),
    ...duplicateViolations(entries, opts),
    ...quotaRetryAfterViolations(entries),
  ].sort((a, b) => a.seq - b.seq);
}

function looksSigned(url: string): boolean {
  try {
    const u = new URL(url);
    return u.pathname.startsWith('/signed/') && u.searchParams.has('expires');
  } catch {
    return false;
  }
}

function mediaUrlsOf(body: unknown): string[] {
  const urls: string[] = [];
  for (const item of arrayOf(asRecord(body)?.content)) {
    const it = asRecord(item);
    for (const key of ['image_url', 'video_url', 'audio_url']) {
      const url = asRecord(it?.[key])?.url;
      if (typeof url === 'string') urls.push(url);
    }
  }
  return urls;
}

/** Every string in a JSON value that is an http(s) or Asset:// address. */
function urlsIn(v: unknown, out: string[] = []): string[] {
  if (typeof v === 'string') {
    if (/^(https?|asset):\/\//i.test(v)) out.push(v);
  } else if (Array.isArray(v)) {
    for (const x of v) urlsIn(x, out);
  } else if (typeof v === 'object' && v !== null) {
    for (const x of Object.values(v)) urlsIn(x, out);
  }
  return out;
}

function asRecord(v: unknown): Record<string, unknown> | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

function arrayOf(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

function stringsOf(v: unknown): string[] {
  return arrayOf(v).filter((x): x is string => typeof x === 'string');
}
