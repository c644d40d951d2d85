// The vocabulary of a RemoteTask (remote-task.ts): its phases, the events it takes, the steps it offers,
// the rules of a kind of task, and which event each phase takes (TRANSITIONS). Types and one table: the
// rows of docs/rules.md's remote-task table read them.

/**
 * - waiting_for_quota: nothing sent; the provider's quota has no slot for it yet (`queued`, also after a 429)
 *   until the admission gate grants one (`admitted`); a callback cannot be its own;
 * - submitting: the submit or create is under way (at most once);
 * - ambiguous: its answer was lost, a task may exist; only a callback naming it can tell (the run matches
 *   the candidate, confirms it with one query, then reports `adopted`), or the job resubmits (opted in);
 * - waiting: the task is known and working; the next step is a callback's query or the next poll;
 * - confirming: a callback came that needs one query;
 * - querying: one query of the task is under way (never two at once);
 * - unknown: a query's attempt vanished with its worker; it may have seen `cancelled`, so a review task
 *   is queried again only once its own callback reports another final state (a final state never
 *   changes, so the lost answer was not `cancelled`); nothing else can tell;
 * - final: a final state is known (or the time is up, or, for a review task, a lost answer leaves it
 *   unknowable: ANSWER_LOST): no query, ever again.
 */
export type RemoteTaskPhase =
  'waiting_for_quota' | 'submitting' | 'ambiguous' | 'waiting' | 'confirming' | 'querying' | 'unknown' | 'final';

/** The pacing record of a task: no query before `notBefore`, the longest Retry-After, the backoff step. */
export interface TaskPacing {
  notBefore: number;
  retryAfterMs: number;
  networkFailures: number;
}

/**
 * The final word of a review task whose query answer was lost and that no callback can clear: the answer
 * may have been `cancelled` (then no query may follow), so the run stops without knowing its state.
 */
export const ANSWER_LOST = 'answer lost';

export type RemoteTaskEvent =
  /** `callbackSent`: the submit carried a callback address (default true). */
  | { type: 'submitted'; taskId: string; at: number; callbackSent?: boolean }
  /** A task known only because a callback named it (a candidate of an ambiguous submit, an orphan). */
  | { type: 'named'; taskId: string }
  /** Reads of this task made before it was this one's (a callback named it): their pacing holds. */
  | ({ type: 'paced' } & TaskPacing)
  | { type: 'queued' }
  | { type: 'admitted' }
  | { type: 'submitAmbiguous' }
  | { type: 'resubmit' }
  /** A callback named the task of an ambiguous submit; `status`: what a query of it answered, if one did. */
  | { type: 'adopted'; taskId: string; status?: string; at: number; retryAfterMs?: number }
  | { type: 'callback'; taskId?: string; status?: string }
  | { type: 'querySent' }
  | { type: 'answered'; status: string; at: number; retryAfterMs?: number }
  | { type: 'queryFailed'; at: number; retryAfterMs?: number }
  | { type: 'answerLost'; at: number }
  /** The run stopped a poll for a callback's query: its last query was before `at`. */
  | { type: 'stopped'; at: number }
  | { type: 'timedOut' };

export type NextStep =
  | { step: 'wait'; forCallback: boolean; pollAt?: number }
  | { step: 'query'; notBefore: number; why: 'confirm' | 'poll' }
  | { step: 'done'; status: string };

/** The rules of one kind of task (spec: Limits, States and transitions, Events). */
export interface RemoteTaskRules {
  /** Queries never closer than this; a Retry-After is obeyed but never shortens it. */
  minIntervalMs: number;
  /** Between polls when no callback can come; `fallbackMs` when one can. */
  pollIntervalMs: number;
  fallbackMs: number;
  /** The job waits for callbacks (when its submit carried an address) rather than polling. */
  callbacks: boolean;
  /** Review: once a query returned `cancelled`, or may have (a lost answer), stop querying. */
  cancelledStopsQueries: boolean;
  isFinal(status: string): boolean;
  isWorking(status: string): boolean;
}

/** Which events each phase takes; any other is a bug of the caller (`apply` throws). */
export const TRANSITIONS: Readonly<Record<RemoteTaskPhase, ReadonlyArray<RemoteTaskEvent['type']>>> = {
  waiting_for_quota: ['admitted', 'callback', 'timedOut'],
  submitting: ['queued', 'submitted', 'named', 'submitAmbiguous', 'callback', 'timedOut'],
  ambiguous: ['adopted', 'resubmit', 'callback', 'timedOut'],
  waiting: ['callback', 'querySent', 'paced', 'timedOut'],
  confirming: ['callback', 'querySent', 'paced', 'timedOut'],
  querying: ['callback', 'answered', 'queryFailed', 'answerLost', 'stopped', 'timedOut'],
  unknown: ['callback', 'querySent', 'paced', 'timedOut'],
  // The time-out can end the task while a query is under way: that query's outcome is then moot.
  final: ['callback', 'answered', 'queryFailed', 'answerLost', 'stopped', 'paced', 'timedOut'],
};
