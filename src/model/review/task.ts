// The review task returned by the query (and, per the design, by sync submit and the review callback).
// Parsed leniently; `code` 200 and 0 both occur, and `data`-wrapped records are accepted. Asset addresses
// are read from `result.items[]` only. Pure: workflow code reads review outcomes with this.
import { z } from 'zod';
import { lazy } from '../lazy.js';
import { asRecord, errorInfo, lenient, looseNumber, looseString } from '../lenient.js';

export type ReviewTaskStatus = 'pending' | 'processing' | 'completed' | 'failed' | 'cancelled' | 'unknown';

const KNOWN_STATUSES: Record<string, ReviewTaskStatus> = {
  pending: 'pending',
  processing: 'processing',
  completed: 'completed',
  failed: 'failed',
  cancelled: 'cancelled',
  canceled: 'cancelled',
};

export function toReviewTaskStatus(raw: string | undefined): ReviewTaskStatus {
  const key = raw?.toLowerCase();
  return key !== undefined && Object.hasOwn(KNOWN_STATUSES, key) ? (KNOWN_STATUSES[key] ?? 'unknown') : 'unknown';
}

/**
 * The states a review task ends in: the one list, read by the polls (src/activities/) and by the workflow
 * (src/workflows/) alike. Every other state, `unknown` included, is queried again.
 */
export const FINAL_REVIEW_STATUSES: ReadonlySet<string> = new Set<ReviewTaskStatus>([
  'completed',
  'failed',
  'cancelled',
]);

/** The states of a review task still at work: a callback reporting one moves no run forward. */
export const WORKING_REVIEW_STATUSES: ReadonlySet<string> = new Set<ReviewTaskStatus>(['pending', 'processing']);

/** A normalized status (or any string) that is final. */
export function isFinalReviewStatus(s: string): boolean {
  return FINAL_REVIEW_STATUSES.has(s);
}

/**
 * One reviewed URL. `assetUrl` (the stable `Asset://` address) is the only address to put in a create
 * request: the expiring `downstream_final_url` is deliberately not a field here (it stays in `raw`).
 */
export interface ReviewItem {
  sourceUrl: string | undefined;
  assetUrl: string | undefined;
  assetId: string | undefined;
  /** True only when `submit_review_status` is the number 1. */
  passed: boolean;
  errorCode: string | undefined;
  errorMessage: string | undefined;
}

export interface ReviewTask {
  taskId: string | undefined;
  status: ReviewTaskStatus;
  rawStatus: string | undefined;
  totalCount: number | undefined;
  doneCount: number | undefined;
  items: ReviewItem[];
  error: { code?: string; message?: string } | undefined;
  /** The record as received (including any `downstream_final_url`). */
  raw: Record<string, unknown>;
  /** The answer's Retry-After in ms (query and sync submit only; absent when none was sent). */
  retryAfterMs?: number;
}

export const reviewItemRecordSchema = lazy(() =>
  z.looseObject({
    asset_id: looseString(),
    source_url: looseString(),
    asset_url: looseString(),
    submit_review_status: z.unknown().optional(),
    error_code: looseString(),
    error_message: looseString(),
  }),
);

export const reviewTaskRecordSchema = lazy(() =>
  z.looseObject({
    code: looseNumber(),
    task_id: looseString(),
    track_id: looseString(),
    status: looseString(),
    message: looseString(),
    total_count: looseNumber(),
    done_count: looseNumber(),
    result: lenient(z.looseObject({ review_batch_id: looseString(), items: lenient(z.array(z.unknown())) })),
    error: z.unknown().optional(),
    error_code: z.unknown().optional(),
    error_message: z.unknown().optional(),
  }),
);
export type ReviewTaskRecord = z.infer<ReturnType<typeof reviewTaskRecordSchema>>;

function normalizeItem(raw: unknown): ReviewItem {
  const i = reviewItemRecordSchema().parse(asRecord(raw) ?? {});
  return {
    sourceUrl: i.source_url,
    assetUrl: i.asset_url,
    assetId: i.asset_id,
    passed: i.submit_review_status === 1,
    errorCode: i.error_code,
    errorMessage: i.error_message,
  };
}

/** The record itself, or its `data` member when the record is wrapped (`{ code, data: { task_id, ... } }`). */
export function unwrapReviewRecord(raw: unknown): Record<string, unknown> {
  const outer = asRecord(raw) ?? {};
  const data = asRecord(outer.data);
  return data !== undefined && outer.task_id === undefined && outer.status === undefined ? data : outer;
}

export function normalizeReviewTask(raw: unknown): ReviewTask {
  const r = reviewTaskRecordSchema().parse(unwrapReviewRecord(raw));
  const failed = r.status?.toLowerCase() === 'failed';
  return {
    taskId: r.task_id,
    status: toReviewTaskStatus(r.status),
    rawStatus: r.status,
    totalCount: r.total_count,
    doneCount: r.done_count,
    items: (r.result?.items ?? []).map(normalizeItem),
    // `message` is an acceptance text on success; it only describes an error on a failed task.
    error:
      errorInfo(r.error, r.error_code, r.error_message) ??
      (failed ? errorInfo(undefined, undefined, r.message) : undefined),
    raw: asRecord(raw) ?? {},
  };
}
