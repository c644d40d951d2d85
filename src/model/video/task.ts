// The video task record returned by GET /v1/task/get/{id} (and posted to callbacks). Its shape is "not
// shown" in the spec; the design expects `{ id, model, status, content: { video_url }, error }`, possibly
// wrapped in `data` or using `task_status`. Parsed leniently; the record as received stays in `raw`. Pure.
import { z } from 'zod';
import { lazy } from '../lazy.js';
import { asRecord, errorInfo, lenient, looseString } from '../lenient.js';

export type VideoTaskStatus = 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled' | 'expired' | 'unknown';

const KNOWN_STATUSES: Record<string, VideoTaskStatus> = {
  queued: 'queued',
  running: 'running',
  succeeded: 'succeeded',
  failed: 'failed',
  cancelled: 'cancelled',
  canceled: 'cancelled',
  expired: 'expired',
};

/** The normalized status of a raw one (any case, `canceled` too); `unknown` when it is none of them. */
export function toVideoTaskStatus(raw: string | undefined): VideoTaskStatus {
  const key = raw?.toLowerCase();
  return key !== undefined && Object.hasOwn(KNOWN_STATUSES, key) ? (KNOWN_STATUSES[key] ?? 'unknown') : 'unknown';
}

/**
 * The states a video task ends in: the one list, read by the polls (src/activities/) and by the workflow
 * (src/workflows/, on query answers and on the statuses callbacks report) alike.
 */
export const FINAL_VIDEO_STATUSES: ReadonlySet<string> = new Set<VideoTaskStatus>([
  'succeeded',
  'failed',
  'cancelled',
  'expired',
]);

/** The states of a video task still at work: a callback reporting one moves no run forward. */
export const WORKING_VIDEO_STATUSES: ReadonlySet<string> = new Set<VideoTaskStatus>(['queued', 'running']);

/** A normalized status (or a status a callback reported) that is final. */
export function isFinalVideoStatus(s: string): boolean {
  return FINAL_VIDEO_STATUSES.has(s);
}

export interface VideoTask {
  id: string | undefined;
  /** 'unknown' for a status this package does not know; never final. */
  status: VideoTaskStatus;
  rawStatus: string | undefined;
  videoUrl: string | undefined;
  error: { code?: string; message?: string } | undefined;
  /** The record as received. */
  raw: Record<string, unknown>;
  /** The query answer's Retry-After in ms; absent when none was sent. */
  retryAfterMs?: number;
}

export const videoTaskRecordSchema = lazy(() => {
  const urlOrRef = lenient(z.union([z.string(), z.looseObject({ url: z.string() }).transform((r) => r.url)]));
  return z.looseObject({
    id: looseString(),
    task_id: looseString(),
    status: looseString(),
    task_status: looseString(),
    content: lenient(z.looseObject({ video_url: urlOrRef })),
    video_url: urlOrRef,
    error: z.unknown().optional(),
    error_code: z.unknown().optional(),
    error_message: z.unknown().optional(),
  });
});

export function normalizeVideoTask(raw: unknown): VideoTask {
  const outer = asRecord(raw) ?? {};
  const data = asRecord(outer.data);
  const wrapped =
    data !== undefined && outer.id === undefined && outer.status === undefined && outer.task_status === undefined;
  const r = videoTaskRecordSchema().parse(wrapped ? data : outer);
  const rawStatus = r.status ?? r.task_status;
  return {
    id: r.id ?? r.task_id,
    status: toVideoTaskStatus(rawStatus),
    rawStatus,
    videoUrl: r.content?.video_url ?? r.video_url,
    error: errorInfo(r.error, r.error_code, r.error_message),
    raw: outer,
  };
}
