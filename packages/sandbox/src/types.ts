// Public types of the sandbox (agreed in the shared interfaces file; fields may be added, never renamed).
import type { QuotaOptions, QuotaRefusal, QuotaStats, QuotaUpdate } from './quota-types.js';

export type * from './quota-types.js';

export type ServiceKind = 'video' | 'review';

export type Operation =
  'video.create' | 'video.get' | 'video.cancel' | 'review.submitAsync' | 'review.submitSync' | 'review.query' | 'other';

/** What a request to the video service's other entry points (operation 'other') was: the audit checks them. */
export type GatewayCall = 'create' | 'query' | 'sync' | 'file';

export interface SandboxOptions extends QuotaOptions {
  host?: string;
  videoPort?: number;
  reviewPort?: number;
  apiKey?: string;
  accessToken?: string;
  reviewDurationMs?: number;
  videoDurationMs?: number;
  /** Added to every service response (faults included). */
  latencyMs?: number;
  cancelMethod?: string;
  cancelPath?: string;
  /** Validity of `downstream_final_url` after the review completed. Default 600000. */
  assetUrlTtlMs?: number;
  /** Upper bound of the wait of a sync review submit. Default 30000. */
  syncReviewWaitMs?: number;
  /** Time-out of one callback delivery. Default 3000. */
  callbackTimeoutMs?: number;
  /** Body `code` of a completed review query: the spec shows 200 and, in a further shape, 0. Default 200. */
  reviewCompletedCode?: 200 | 0;
  /** Accept loopback/private/link-local media and callback addresses (the spec wants public ones, so a
   * request with one is answered 400 naming the field unless this is true). Default false. */
  allowPrivateUrls?: boolean;
  /** Retry-After (delta-seconds or HTTP-date) sent on 200 answers about a review task not final yet
   * (pending or processing): query answers, and a sync submit answered before the review ended. Default: none. */
  reviewProcessingRetryAfter?: string;
  /** Size of every generated video file served at a task's `video_url`. Default 1048576 (1 MiB). */
  videoFileBytes?: number;
  /** Validity of a signed `video_url` from the moment a task record carries it. Default 3600000. */
  videoUrlTtlMs?: number;
}

/**
 * A fault of the next video file download(s): a reset after `afterBytes`, a body of `bytesPerSecond`, or
 * 403 as if the address had expired.
 */
export type VideoFileFault =
  | { mode: 'reset'; afterBytes: number; times?: number }
  | { mode: 'slow'; bytesPerSecond: number; times?: number }
  | { mode: 'expired'; times?: number };

export interface RequestLogEntry {
  seq: number;
  /** ms epoch when received */
  at: number;
  service: ServiceKind;
  operation: Operation;
  method: string;
  /** Path with query string, as received. */
  path: string;
  /** Lower-case names, as received. */
  headers: Record<string, string>;
  /** Parsed JSON body; the raw text when it was not JSON; undefined when empty. */
  body: unknown;
  /** HTTP status answered; 0 while unanswered or when the socket was reset. */
  status: number;
  fault?: string;
  taskId?: string;
  /** Added: the JSON body answered (absent for non-JSON answers and resets). */
  response?: unknown;
  /** Added: the Retry-After header value answered, if any. */
  retryAfter?: string;
  /** Added: ms epoch when the answer was written (after the service's work and `latencyMs`); absent for
   * resets. A sync submit's answer comes long after `at`, and a Retry-After counts from the answer. */
  answeredAt?: number;
  /** Added: the client had closed the connection before the answer was ready (a hang outlasting its
   * time-out): `status`, `response` and `retryAfter` are what it would have been told, and never saw. */
  clientGone?: true;
  /** Set for the video service's other entry points (operation 'other'): which kind of call it was. */
  gateway?: GatewayCall;
  /** Added: the service refused this create or submit (429) for one of its quotas; nothing was made. */
  quota?: QuotaRefusal;
}

export interface CallbackLogEntry {
  at: number;
  kind: ServiceKind;
  url: string;
  taskId: string;
  status: string;
  payload: unknown;
  outcome: 'delivered' | 'rejected' | 'error' | 'dropped';
  httpStatus?: number;
  /** Added: the callback fault that shaped this attempt ('duplicate', 'delay', 'reorder', 'drop'). */
  fault?: string;
  /** Added: the error text when outcome is 'error'. */
  error?: string;
}

export type Fault =
  | { type: 'status'; status: number; retryAfter?: string; body?: unknown; echo?: boolean; commit?: boolean }
  | { type: 'hang'; ms: number; commit?: boolean }
  | { type: 'reset'; commit?: boolean }
  | { type: 'malformed'; commit?: boolean }
  /**
   * The service answers (it always acts first), and its event stream fails after `afterEvents` events
   * (default 2) with the path family's mid-stream error for HTTP `status` (default 500); a reply that is
   * not an event stream is left as it is.
   */
  | { type: 'streamError'; afterEvents?: number; status?: number };

export interface FaultRule {
  operation: Operation;
  /** Default 1; Infinity = every matching request. */
  times?: number;
  match?: { url?: string; taskId?: string; model?: string };
  fault: Fault;
}

export interface CallbackFaultRule {
  kind: ServiceKind;
  mode: 'drop' | 'duplicate' | 'delay' | 'reorder';
  /** delay: wait before sending. reorder: longest hold when no later delivery comes (default 1000). */
  delayMs?: number;
  /** Default 1; Infinity = every matching delivery. */
  times?: number;
}

export interface ReviewVerdict {
  passed: boolean;
  errorCode?: string;
  errorMessage?: string;
}

export type ReviewOutcome = 'completed' | 'failed' | 'cancelled';
export type VideoOutcome = 'succeeded' | 'failed' | 'expired' | 'cancelled';

export interface VideoTaskSummary {
  id: string;
  status: string;
  model: string;
  body: unknown;
  createdAt: number;
}

export interface ReviewTaskSummary {
  taskId: string;
  status: string;
  urls: string[];
  createdAt: number;
}

export interface Sandbox {
  videoBaseUrl: string;
  reviewBaseUrl: string;
  apiKey: string;
  accessToken: string;
  requests(): RequestLogEntry[];
  callbacks(): CallbackLogEntry[];
  videoTasks(): VideoTaskSummary[];
  reviewTasks(): ReviewTaskSummary[];
  addFault(rule: FaultRule): void;
  setReviewVerdict(url: string, verdict: ReviewVerdict): void;
  setReviewTaskOutcome(match: { url: string }, outcome: ReviewOutcome, durationMs?: number): void;
  setVideoOutcome(match: { model?: string; promptIncludes?: string }, outcome: VideoOutcome, durationMs?: number): void;
  setCallbackFault(rule: CallbackFaultRule): void;
  /** Added: the next video file download(s) fail or crawl. */
  setVideoFileFault(fault: VideoFileFault): void;
  /** Added: every video address handed out so far answers 403 from now on (records carry fresh ones). */
  expireVideoUrls(): void;
  cancelReviewTask(taskId: string): void;
  /** Added: change the quotas now (tasks already in flight keep running). `reset()` restores the start ones. */
  setQuotas(update: QuotaUpdate): void;
  /** Added: the quotas in force. */
  quotas(): QuotaOptions;
  /** Added: tasks in flight, their peak, creates admitted and refused, per service (and per video model). */
  quotaStats(): QuotaStats;
  reset(): void;
  close(): Promise<void>;
}

export interface Violation {
  rule: string;
  seq: number;
  detail: string;
}
