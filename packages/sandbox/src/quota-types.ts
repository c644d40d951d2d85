// Public types of the sandbox's quotas (re-exported by types.ts; fields may be added, never renamed).

/**
 * Added: the sandbox's own quotas, per credential (the video service's bearer key, the review service's
 * access token), and per model for video: its real capacity, independent of whatever limits a client is
 * configured with. Unset = unlimited. A create or submit beyond one is answered 429 and makes nothing.
 */
export interface QuotaOptions {
  /** Video tasks in flight (not yet final) at once, all models together. */
  videoMaxTasksInFlight?: number;
  /** Video tasks in flight at once, per model (`{ 'model-a': 2 }`); a model not listed has no limit of its own. */
  videoMaxTasksInFlightByModel?: Record<string, number>;
  /** Video creates admitted within the sliding window (`quotaWindowMs`, 60 s), all models together. */
  videoMaxCreatesPerMinute?: number;
  /** Video creates admitted within the sliding window, per model. */
  videoMaxCreatesPerMinuteByModel?: Record<string, number>;
  /** Retry-After of a video quota 429: `'computed'` (default: when the limit should free), `'none'`, or fixed seconds. */
  videoQuotaRetryAfter?: QuotaRetryAfter;
  /** Review tasks in flight (pending or processing) at once, async and sync submits together. */
  reviewMaxTasksInFlight?: number;
  /** Review submits (async and sync) admitted within the sliding window. */
  reviewMaxSubmitsPerMinute?: number;
  /** Retry-After of a review quota 429: as `videoQuotaRetryAfter`. */
  reviewQuotaRetryAfter?: QuotaRetryAfter;
  /** Length of the sliding window of the per-minute limits. Default 60000 (shorter in tests). */
  quotaWindowMs?: number;
}

/** `'computed'`: seconds until the limit should free; `'none'`: no Retry-After header; a number: that many seconds. */
export type QuotaRetryAfter = 'computed' | 'none' | number;

/** A run-time change of the quotas: a field given replaces the current value, `null` removes it (unlimited). */
export type QuotaUpdate = { [K in keyof QuotaOptions]?: QuotaOptions[K] | null };

/** What a quota 429 refused on: recorded as `quota` in the request log. */
export interface QuotaRefusal {
  limit: 'tasks-in-flight' | 'per-minute';
  /** The credential's limit (all models), or the model's. */
  scope: 'credential' | 'model';
  /** The model of the create (video only). */
  model?: string;
  /** The limit as it stood. */
  max: number;
}

export interface QuotaCounters {
  /** Tasks not final now. */
  inFlight: number;
  /** The most tasks ever in flight at once (since start or reset). */
  peakInFlight: number;
  /** Creates (submits) that made a task. */
  admitted: number;
  /** Creates (submits) answered 429 for a quota. */
  refused: number;
  refusedBy: { tasksInFlight: number; perMinute: number };
}

/** Per service, for the sandbox's credential; video also per model (every model seen, limited or not). */
export interface QuotaStats {
  video: QuotaCounters & { byModel: Record<string, QuotaCounters> };
  review: QuotaCounters;
}
