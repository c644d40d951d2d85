// The life of one remote task (a review batch's task, the video task, a gateway task) as one state
// machine: an explicit phase, the transitions written once (TRANSITIONS), the task's pacing record and
// its pending callback. It decides what the run may do next (`next`): wait, query (and not before when),
// or stop. Pure: no SDK call and no clock (the caller passes the times), so every rule of the spec that
// concerns a task is a row of test/unit/remote-task.test.ts, run in milliseconds without a server.
// The driver that runs its steps with activities and timers is task-waiter.ts; its phases, events and
// transitions are written in remote-task-table.ts.
import { queryBackoffMs } from '../contract/index.js';
import {
  ANSWER_LOST,
  TRANSITIONS,
  type NextStep,
  type RemoteTaskEvent,
  type RemoteTaskPhase,
  type RemoteTaskRules,
} from './remote-task-table.js';

export {
  ANSWER_LOST,
  TRANSITIONS,
  type NextStep,
  type RemoteTaskEvent,
  type RemoteTaskPhase,
  type RemoteTaskRules,
  type TaskPacing,
} from './remote-task-table.js';

export class RemoteTask {
  #phase: RemoteTaskPhase = 'submitting';
  #taskId: string | undefined;
  #status: string | undefined;
  /** Pacing record: no query before this (ms epoch), the longest Retry-After seen, the backoff step. */
  #notBefore = 0;
  #retryAfterMs = 0;
  #networkFailures = 0;
  /** When the last query (or the submit) was answered: the cadence of polls counts from it. */
  #lastAnswerAt = 0;
  /** A query has answered: until then a polling job polls as soon as the pacing allows. */
  #answered = false;
  /** A callback came that the next query must answer. */
  #callbackPending = false;
  /** Callbacks that came before the submit's answer (a fast task): read once the task id is known. */
  #early: Array<{ taskId?: string; status?: string }> = [];
  /** Counts every event applied: the driver waits for it to change. */
  #changes = 0;
  /** The submit carried a callback address: the service calls back on a final state, even if the job polls. */
  #callbackSent = true;
  /** A submit of this task was answered ambiguously: a task a callback names may be an orphan of it. */
  #ambiguous = false;
  /**
   * A callback naming this task reported a final state other than `cancelled`: final states never change,
   * so no query of it can have answered `cancelled` (a lost answer may be followed by a query).
   */
  #finalNotCancelled = false;
  /** A callback naming this task reported `cancelled`: it is not called back again, whatever was lost. */
  #cancelledReported = false;

  constructor(private readonly rules: RemoteTaskRules) {}

  get phase(): RemoteTaskPhase {
    return this.#phase;
  }
  get taskId(): string | undefined {
    return this.#taskId;
  }
  /** The last state known: a query's answer, or a callback's word where it is taken. */
  get status(): string | undefined {
    return this.#status;
  }
  get pacing(): { notBefore: number; retryAfterMs: number; networkFailures: number } {
    return { notBefore: this.#notBefore, retryAfterMs: this.#retryAfterMs, networkFailures: this.#networkFailures };
  }
  /** Its submit carried a callback address: the service calls back when it is final. */
  get callbackSent(): boolean {
    return this.#callbackSent;
  }
  /** The run waits for callbacks of this task (a poll is then stopped for a callback's query). */
  get waitsForCallbacks(): boolean {
    return this.rules.callbacks && this.#callbackSent;
  }
  /** A callback came that the next query must answer. */
  get callbackPending(): boolean {
    return this.#callbackPending;
  }
  get changes(): number {
    return this.#changes;
  }
  /** A submit of this task was answered ambiguously (500, time-out, reset): one may exist besides it. */
  get wasAmbiguous(): boolean {
    return this.#ambiguous;
  }

  apply(e: RemoteTaskEvent): void {
    if (!TRANSITIONS[this.#phase].includes(e.type)) {
      throw new Error(`remote task ${this.#taskId ?? '(not created)'}: ${e.type} in phase ${this.#phase}`);
    }
    this.#changes++;
    if (this.#phase === 'final' && e.type !== 'callback' && e.type !== 'timedOut') return;
    switch (e.type) {
      case 'submitted': {
        this.#taskId = e.taskId;
        this.#callbackSent = e.callbackSent ?? true;
        this.#lastAnswerAt = e.at;
        this.#notBefore = e.at + this.rules.minIntervalMs;
        this.#to('waiting');
        const early = this.#early;
        this.#early = [];
        for (const callback of early) this.#callback(callback);
        return;
      }
      case 'named':
        // Known from a callback only: one query tells its state.
        this.#taskId = e.taskId;
        this.#callbackPending = true;
        return this.#to('confirming');
      case 'paced':
        this.#notBefore = Math.max(this.#notBefore, e.notBefore);
        this.#retryAfterMs = Math.max(this.#retryAfterMs, e.retryAfterMs);
        this.#networkFailures = Math.max(this.#networkFailures, e.networkFailures);
        return;
      case 'queued':
        return this.#to('waiting_for_quota');
      case 'submitAmbiguous':
        this.#ambiguous = true;
        return this.#to('ambiguous');
      case 'resubmit':
      case 'admitted':
        return this.#to('submitting');
      case 'adopted':
        this.#taskId = e.taskId;
        this.#callbackSent = true;
        if (e.status !== undefined) return this.#answer(e.status, e.at, e.retryAfterMs);
        // Known from its callback only: one query tells its state.
        this.#lastAnswerAt = e.at;
        this.#callbackPending = true;
        return this.#to('confirming');
      case 'callback':
        return this.#callback(e);
      case 'querySent':
        this.#callbackPending = false;
        return this.#to('querying');
      case 'answered':
        return this.#answer(e.status, e.at, e.retryAfterMs);
      case 'queryFailed': {
        if (e.retryAfterMs === undefined) this.#networkFailures++;
        const backoff = queryBackoffMs(this.#networkFailures);
        this.#pace(e.at, e.retryAfterMs ?? backoff);
        return this.#to(this.#callbackPending ? 'confirming' : 'waiting');
      }
      case 'answerLost': // a query whose answer the run never saw failed: the 1/2/4 s backoff goes on
        this.#networkFailures++;
        this.#pace(e.at, Math.max(this.#retryAfterMs, queryBackoffMs(this.#networkFailures)));
        return this.#answerLost();
      case 'stopped':
        this.#pace(e.at, this.#retryAfterMs);
        return this.#to(this.#callbackPending ? 'confirming' : 'waiting');
      case 'timedOut':
        if (this.#phase !== 'final') this.#status = 'timed out';
        return this.#to('final');
    }
  }

  /** What the run may do now. */
  next(): NextStep {
    const r = this.rules;
    switch (this.#phase) {
      case 'final':
        return { step: 'done', status: this.#status ?? 'timed out' };
      case 'waiting_for_quota':
      case 'submitting':
      case 'querying':
        return { step: 'wait', forCallback: false };
      case 'ambiguous':
        return { step: 'wait', forCallback: true };
      case 'confirming':
        return { step: 'query', notBefore: this.#notBefore, why: 'confirm' };
      case 'unknown':
        // A review task waits for its own callback (until the time-out): only a final state other than
        // `cancelled` lets it be queried again. A video task has no such rule: it is queried again.
        return r.cancelledStopsQueries
          ? { step: 'wait', forCallback: true }
          : { step: 'query', notBefore: this.#notBefore, why: 'poll' };
      case 'waiting': {
        const callbacks = this.waitsForCallbacks;
        const cadence = callbacks ? r.fallbackMs : this.#answered ? r.pollIntervalMs : 0;
        const pollAt = Math.max(this.#notBefore, this.#lastAnswerAt + cadence);
        return { step: 'wait', forCallback: callbacks, pollAt };
      }
    }
  }

  #to(phase: RemoteTaskPhase): void {
    this.#phase = phase;
  }

  #pace(at: number, waitMs: number): void {
    this.#notBefore = Math.max(this.#notBefore, at + Math.max(this.rules.minIntervalMs, waitMs));
  }

  #answer(status: string, at: number, retryAfterMs: number | undefined): void {
    this.#status = status;
    this.#networkFailures = 0;
    this.#lastAnswerAt = at;
    this.#answered = true;
    if (retryAfterMs !== undefined) this.#retryAfterMs = Math.max(this.#retryAfterMs, retryAfterMs);
    this.#pace(at, retryAfterMs ?? 0);
    if (this.rules.isFinal(status)) return this.#to('final');
    this.#to(this.#callbackPending ? 'confirming' : 'waiting');
  }

  /**
   * A review task's lost answer may have been `cancelled`, after which it is never queried: it is queried
   * again only when its own callback has reported another final state; else it waits for that callback
   * (when its submit sent an address and none has said `cancelled` yet: a final state is called back
   * once) or stops, its state unknown. A video task is queried again.
   */
  #answerLost(): void {
    if (!this.rules.cancelledStopsQueries || this.#finalNotCancelled)
      return this.#to(this.#callbackPending || this.#finalNotCancelled ? 'confirming' : 'unknown');
    if (this.#callbackSent && !this.#cancelledReported) return this.#to('unknown');
    return this.#stateUnknown();
  }

  /** Neither a query (it may be cancelled) nor a callback's body (not signed) can tell: the run stops. */
  #stateUnknown(): void {
    this.#status = ANSWER_LOST;
    this.#to('final');
  }

  /**
   * A callback's body is not signed (only its URL is): it is a hint that wakes the run, never a task's
   * final word. One that needs it asks for one confirming query; none ends the task by itself.
   */
  #callback({ taskId, status }: { taskId?: string; status?: string }): void {
    // Another task's (an orphan, another batch's) or one that came after the end: not this task's concern.
    if (this.#phase === 'final' || (taskId !== undefined && this.#taskId !== undefined && taskId !== this.#taskId))
      return;
    // Before the task is known: kept until the submit answers, or (ambiguous) left to the run, which
    // matches a named task to its submit, confirms it with one query and reports `adopted`.
    if (this.#phase === 'submitting') return void this.#early.push({ taskId, status });
    if (this.#phase === 'ambiguous' || this.#phase === 'waiting_for_quota') return;
    const ownFinal = taskId !== undefined && status !== undefined && this.rules.isFinal(status);
    if (ownFinal) {
      if (status === 'cancelled') this.#cancelledReported = true;
      else this.#finalNotCancelled = true;
    }
    if (this.#phase === 'unknown' && this.rules.cancelledStopsQueries) {
      // Nothing but its own final callback can tell what the lost answer was.
      if (!ownFinal) return;
      if (status === 'cancelled') return this.#stateUnknown();
    }
    // Still working: moves nothing forward, needs no query.
    if (status !== undefined && this.rules.isWorking(status)) return;
    this.#callbackPending = true;
    if (this.#phase === 'waiting' || this.#phase === 'unknown') this.#to('confirming');
  }
}
