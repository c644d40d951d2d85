// What each activity is given and what it answers besides the task summaries (task-summaries.ts): the
// inputs the workflows send and the results they read. Types, and one constant both sides pace by.
import type { ReviewThenGenerateInput } from '../job/input-schema.js';
import type { GatewayTaskEntryPoint, GatewayTaskView } from '../model/video/gateway-adapters.js';
import type { GatewayEndpointName, GatewayParam } from '../model/video/gateway-endpoints.js';
import type { CreateTaskBody } from '../model/video/schemas.js';

// ---- Native task API (ReviewThenGenerate) -----------------------------------------------------------

/**
 * A query activity sleeps until `notBefore` when it is at most this far ahead; a later one is left to the
 * retry timer (an attempt that queries nothing). The run waits out a longer one itself, with a timer.
 */
export const LONGEST_IN_ATTEMPT_WAIT_MS = 5_000;

/** Backoff after the n-th network failure of a query in a row (spec: 1 s, 2 s, 4 s, then 4 s). */
export function queryBackoffMs(failures: number): number {
  return [0, 1_000, 2_000, 4_000][Math.min(failures, 3)]!;
}

export interface PollInput {
  taskId: string;
  /** Queries of this task are never closer than this (Retry-After never shortens it). */
  minIntervalMs: number;
  /** true: keep polling (through activity retries) until a final state; false: one query. */
  untilFinal: boolean;
  /** Delay before the next poll when the state is not final (default: minIntervalMs). */
  cadenceMs?: number;
  /**
   * Epoch ms before which this task must not be queried: the run's own record of its last query and of
   * any Retry-After. Kept by the workflow, so the interval holds across workers, restarts and evictions.
   */
  notBefore?: number;
  /**
   * The longest Retry-After the run has seen for this task. When set, an answer asking for a longer one
   * ends the poll (a not-final result, or RetryAfterRaised on an error) so the run learns it: the run
   * can then still pace a confirming query after stopping a poll whose attempts it never saw.
   */
  knownRetryAfterMs?: number;
  /** Network failures in a row the run's record of this task counts: the backoff goes on from there. */
  networkFailures?: number;
  /**
   * The run may stop this poll for a callback's query, so it must know every backoff step: a network
   * failure ends the poll (QueryFailureReported) instead of being waited out by its retries.
   */
  reportNetworkFailures?: boolean;
  /**
   * Review tasks: an attempt that vanished (worker lost) may have seen `cancelled`, after which the task
   * is never queried; the next attempt then ends QueryAnswerLost instead of querying (task-protocol.ts).
   */
  guardLostAnswer?: boolean;
  /**
   * The quota slot the task holds: the query that reads the task final gives it back to its gate at once
   * (the provider no longer counts the task), rather than after the run's next workflow task.
   */
  releaseSlotWhenFinal?: HeldQuotaSlot;
}

export interface ReviewSubmitInput {
  workflowId: string;
  assetType: 'Image' | 'Video' | 'Audio';
  urls: string[];
  groupId?: string;
  /** '' or 'real_person' with groupId; any string without (spec: group_source). */
  groupSource?: string;
  /** The job's resubmitOnAmbiguity (see recordsTaskId); unset in runs scheduled by 0.2.0. */
  resubmitOnAmbiguity?: boolean;
  /** When the stage this submit belongs to times out (ms epoch): its callback URL expires a margin later. */
  stageDeadline?: number;
  /** Where the worker limits review tasks (REVIEW_MAX_TASKS_IN_FLIGHT...): as for a video create. */
  admission?: AdmissionAsk;
}

export interface ReviewSyncSubmitInput extends ReviewSubmitInput {
  /** HTTP deadline of the blocking call: the review's own time-out, not the short per-request one. */
  timeoutMs: number;
}

/**
 * What a submit or create tells the workflow besides the task: whether it sent a callback address. Only
 * the worker knows (it has a callback receiver or not), and a stage that sent none polls from the start.
 */
export interface CallbackSent {
  callbackSent: boolean;
}

export interface VideoCreateInput {
  workflowId: string;
  body: CreateTaskBody;
  /** The job's resubmitOnAmbiguity (see recordsTaskId); unset in runs scheduled by 0.2.0. */
  resubmitOnAmbiguity?: boolean;
  /** When the generation stage times out (ms epoch): the callback URL expires a margin later. */
  stageDeadline?: number;
  /** The job polls its task (`callbacks: false`): its callback URL says so, signed (callback-signing.ts). */
  polls?: boolean;
  /**
   * Where the worker limits tasks in flight (VIDEO_MAX_TASKS_IN_FLIGHT...), the create waits for a slot:
   * the run's request, and whether the gate granted it (then the create is sent, else it is queued).
   */
  admission?: AdmissionAsk;
}

/** A run's request for a provider slot (src/contract/admission.ts has the gate's side). */
export interface AdmissionAsk {
  /** Unique per run and task: a request asked twice is one request. */
  requestId: string;
  /** 1 (highest) to 5; default 3. */
  priority?: number;
  /** The tenant the slots are shared across. */
  fairnessKey?: string;
  /** The gate granted this request: send the create. */
  granted?: boolean;
  /** When the tenant's daily budget is spent: wait for the next day (default), or fail BudgetExceeded. */
  onBudgetExceeded?: 'wait' | 'fail';
}

/**
 * What a create answered: the task, or (only where a limit applies) that it waits for a slot of `key`'s
 * gate, or that the provider refused it for its quota (429) and the request waits again.
 */
export type VideoCreateOutcome = ({ taskId: string } & CallbackSent) | QuotaAnswer;

/** A slot of `key`'s gate a run holds, to give back: `sentAt`, when its create was answered (the rate window). */
export interface HeldQuotaSlot {
  key: string;
  requestId: string;
  sentAt?: number;
}

/** A slot of `key`'s gate held for the run's request `requestId`. */
export interface HeldSlotRef {
  key: string;
  requestId: string;
  /** Which grant it holds (admission grantIdOf): a later lease check of this grant is not a new one. */
  grant?: string;
  /** With a rate limit: by when the gate assumes its create answered (SlotGranted.sendBy). */
  sendBy?: number;
}

/**
 * Where a limit applies, what an attempt that did not send answers: the gate granted the ask at once
 * (`admitted`: the run holds the slot and sends in its next attempt, so that an attempt that asks never
 * also sends), or a wait.
 */
export type QuotaAnswer = { admitted: HeldSlotRef } | QuotaWait;

/** Nothing was sent (queued for a slot of `key`), or the provider refused a granted one (429): wait again. */
export type QuotaWait =
  | { queued: { key: string; requestId: string } }
  | { refused: { key: string; requestId: string; retryAfterMs?: number; message: string } };

/** What an async review submit answered: the task, or, only where a limit applies, a wait for a slot. */
export type ReviewSubmitOutcome = ({ taskId: string; status: string } & CallbackSent) | QuotaAnswer;

// ---- Gateway entry points (GenerateAndPoll, rtgCallGateway) -------------------------------------------

/** A synchronous call. JSON bodies only: a FormData cannot travel through workflow history. */
export interface GatewayCallInput {
  endpoint: GatewayEndpointName;
  params?: Partial<Record<GatewayParam, string>>;
  body?: Record<string, unknown>;
  checkWellKnown?: boolean;
}

export interface GatewayCallResult {
  endpoint: GatewayEndpointName;
  status: number;
  /** The answer, whole (callback addresses redacted). */
  body: unknown;
}

export interface GatewayCreateInput {
  entryPoint: GatewayTaskEntryPoint;
  body: Record<string, unknown>;
  /** The query kind the workflow will poll with (checked before anything is created). */
  queryKind?: string;
  checkWellKnown?: boolean;
}

/** A create of GenerateAndPoll where the worker limits the video tasks in flight: the run's request. */
export interface GatewayQuotaCreateInput extends GatewayCreateInput {
  admission: AdmissionAsk;
}

export interface GatewayCreateResult {
  taskId: string;
  /** The state the create answer carried, if any. */
  state: string | undefined;
  reading: GatewayTaskView['reading'];
  raw: unknown;
}

export interface GatewayQueryInput extends PollInput {
  entryPoint: GatewayTaskEntryPoint;
  queryKind?: string;
  /** While polling, also return as soon as the state differs from this one (so progress shows it). */
  returnOnChangeFrom?: string | null;
}

/** A succeeded gateway task whose record names no URL: its result is downloaded into the store. */
export interface GatewayKeepInput {
  workflowId: string;
  entryPoint: GatewayTaskEntryPoint;
  taskId: string;
}

// ---- Storing the video (rtgStoreVideo) ------------------------------------------------------------------

export interface StoreVideoInput {
  workflowId: string;
  taskId: string;
  /** The task's signed address as last seen; absent or expired, a query gets a fresh one. */
  videoUrl: string | undefined;
}

// ---- The jobs file of a batch (rtgReadJobsFile) ----------------------------------------------------------

export interface ReadJobsInput {
  path: string;
  /** Byte offset where reading starts (0, or the `end` of the previous page). */
  offset: number;
  /** Lines before `offset` (1-based line numbers continue from it). */
  line: number;
  /** Jobs (non-blank lines) to return at most. */
  limit: number;
}

export type JobLine =
  | { line: number; end: number; key?: string; input: ReviewThenGenerateInput }
  | { line: number; end: number; problem: string };

export interface JobsPage {
  entries: JobLine[];
  /** Byte offset and line count after the last line scanned: where the next page starts. */
  end: number;
  line: number;
  eof: boolean;
}
