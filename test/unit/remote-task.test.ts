// Every rule of the spec that concerns one remote task, as a row against the RemoteTask state machine
// (src/workflows/remote-task.ts): pacing, Retry-After, backoff, final states, callbacks, lost answers.
import { describe, expect, it } from 'vitest';
import { isFinalReviewStatus, WORKING_REVIEW_STATUSES } from '../../src/model/review/task.js';
import { isFinalVideoStatus, WORKING_VIDEO_STATUSES } from '../../src/model/video/task.js';
import {
  ANSWER_LOST,
  RemoteTask,
  TRANSITIONS,
  type RemoteTaskEvent,
  type RemoteTaskPhase,
  type RemoteTaskRules,
} from '../../src/workflows/remote-task.js';

const T0 = 1_000_000;
const review = (o: Partial<RemoteTaskRules> = {}): RemoteTaskRules => ({
  minIntervalMs: 2_000,
  pollIntervalMs: 2_000,
  fallbackMs: 30_000,
  callbacks: true,
  cancelledStopsQueries: true,
  isFinal: isFinalReviewStatus,
  isWorking: (s) => WORKING_REVIEW_STATUSES.has(s),
  ...o,
});
const video = (o: Partial<RemoteTaskRules> = {}): RemoteTaskRules => ({
  minIntervalMs: 0,
  pollIntervalMs: 10_000,
  fallbackMs: 60_000,
  callbacks: true,
  cancelledStopsQueries: false,
  isFinal: isFinalVideoStatus,
  isWorking: (s) => WORKING_VIDEO_STATUSES.has(s),
  ...o,
});

function submitted(rules: RemoteTaskRules, taskId = 't1') {
  const task = new RemoteTask(rules);
  task.apply({ type: 'submitted', taskId, at: T0 });
  return task;
}

function queried(task: RemoteTask, answer: Omit<Extract<RemoteTaskEvent, { type: 'answered' }>, 'type'>) {
  task.apply({ type: 'querySent' });
  task.apply({ type: 'answered', ...answer });
  return task;
}

describe('RemoteTask: pacing (spec: Limits)', () => {
  it('never queries closer than the minimum interval, from the submit and from each answer', () => {
    const task = submitted(review({ callbacks: false }));
    expect(task.next()).toEqual({ step: 'wait', forCallback: false, pollAt: T0 + 2_000 });
    queried(task, { status: 'processing', at: T0 + 2_100 });
    expect(task.next()).toEqual({ step: 'wait', forCallback: false, pollAt: T0 + 4_100 });
  });

  it('obeys a Retry-After, which never shortens the minimum interval', () => {
    const task = submitted(review({ callbacks: false }));
    queried(task, { status: 'processing', at: T0 + 2_000, retryAfterMs: 5_000 });
    expect(task.pacing.notBefore).toBe(T0 + 7_000);
    queried(task, { status: 'processing', at: T0 + 7_000, retryAfterMs: 100 });
    expect(task.pacing.notBefore).toBe(T0 + 9_000);
  });

  it('backs off 1 s, 2 s, 4 s, then 4 s after network failures, never below the interval; an answer resets it', () => {
    const v = submitted(video({ callbacks: false }));
    const gaps: number[] = [];
    for (let i = 0, at = T0; i < 4; i++) {
      v.apply({ type: 'querySent' });
      v.apply({ type: 'queryFailed', at });
      gaps.push(v.pacing.notBefore - at);
      at = v.pacing.notBefore;
    }
    expect(gaps).toEqual([1_000, 2_000, 4_000, 4_000]);
    queried(v, { status: 'running', at: T0 + 20_000 });
    expect(v.pacing.networkFailures).toBe(0);

    const r = submitted(review({ callbacks: false }));
    r.apply({ type: 'querySent' });
    r.apply({ type: 'queryFailed', at: T0 + 2_000 });
    expect(r.pacing.notBefore - (T0 + 2_000)).toBe(2_000);
  });

  it('a failure that carries a Retry-After waits for it and is not a network failure', () => {
    const task = submitted(review());
    task.apply({ type: 'querySent' });
    task.apply({ type: 'queryFailed', at: T0 + 2_000, retryAfterMs: 10_000 });
    expect(task.pacing).toMatchObject({ notBefore: T0 + 12_000, networkFailures: 0 });
  });
});

describe('RemoteTask: final states (spec: States and transitions)', () => {
  it.each(['completed', 'failed', 'cancelled'])('a review task answered %s is done: no query ever again', (status) => {
    const task = queried(submitted(review()), { status, at: T0 + 2_000 });
    expect(task.next()).toEqual({ step: 'done', status });
    expect(() => task.apply({ type: 'querySent' })).toThrow(/querySent in phase final/);
    task.apply({ type: 'callback', taskId: 't1', status: 'completed' });
    expect(task.next()).toEqual({ step: 'done', status });
  });

  it('a review callback reporting cancelled is a hint: one query confirms it (a body is not signed; issue 36, 7)', () => {
    const task = submitted(review());
    task.apply({ type: 'callback', taskId: 't1', status: 'cancelled' });
    expect(task.next()).toEqual({ step: 'query', notBefore: T0 + 2_000, why: 'confirm' });
    queried(task, { status: 'cancelled', at: T0 + 2_000 });
    expect(task.next()).toEqual({ step: 'done', status: 'cancelled' });
  });

  it('a review callback naming no task and reporting cancelled ends no batch: each confirms with one query (issue 36, 7)', () => {
    const batches = [submitted(review(), 'a'), submitted(review(), 'b')];
    for (const b of batches) b.apply({ type: 'callback', status: 'cancelled' });
    for (const b of batches) expect(b.next()).toMatchObject({ step: 'query', why: 'confirm' });
    queried(batches[0]!, { status: 'processing', at: T0 + 2_000 });
    expect(batches[0]!.next()).toMatchObject({ step: 'wait' });
  });

  it('a confirming query scheduled before a callback reports cancelled still goes out, and is the last one (issue 36, 10a)', () => {
    // The suspicion was that it should not: a body is a hint, so it must; a query that answered
    // `cancelled` is the last.
    const scheduled = submitted(review());
    scheduled.apply({ type: 'callback', taskId: 't1', status: 'completed' });
    scheduled.apply({ type: 'callback', taskId: 't1', status: 'cancelled' });
    expect(scheduled.next()).toMatchObject({ step: 'query', why: 'confirm' });
    const sent = submitted(review());
    sent.apply({ type: 'callback', taskId: 't1', status: 'completed' });
    sent.apply({ type: 'querySent' });
    sent.apply({ type: 'callback', taskId: 't1', status: 'cancelled' });
    sent.apply({ type: 'answered', status: 'cancelled', at: T0 + 2_000 });
    expect(sent.next()).toEqual({ step: 'done', status: 'cancelled' });
    expect(() => sent.apply({ type: 'querySent' })).toThrow(/querySent in phase final/);
  });

  it('a video callback reporting cancelled is confirmed by one query (no such rule for video)', () => {
    const task = submitted(video());
    task.apply({ type: 'callback', taskId: 't1', status: 'cancelled' });
    expect(task.next()).toEqual({ step: 'query', notBefore: T0, why: 'confirm' });
  });

  it('the time-out ends any phase, and a query under way when the word came is moot', () => {
    const task = submitted(review());
    task.apply({ type: 'querySent' });
    task.apply({ type: 'callback', taskId: 't1', status: 'cancelled' });
    task.apply({ type: 'answered', status: 'cancelled', at: T0 + 2_500 });
    expect(task.next()).toEqual({ step: 'done', status: 'cancelled' });
    const slow = submitted(video());
    slow.apply({ type: 'timedOut' });
    expect(slow.next()).toEqual({ step: 'done', status: 'timed out' });
  });
});

describe('RemoteTask: callbacks (spec: Events)', () => {
  it('waits for a callback first, polling slowly as the fallback', () => {
    expect(submitted(review()).next()).toEqual({ step: 'wait', forCallback: true, pollAt: T0 + 30_000 });
  });

  it('a still-working callback needs no query; a final or unreadable one needs exactly one', () => {
    const task = submitted(video());
    task.apply({ type: 'callback', taskId: 't1', status: 'running' });
    expect(task.next().step).toBe('wait');
    task.apply({ type: 'callback', taskId: 't1', status: 'succeeded' });
    task.apply({ type: 'callback', taskId: 't1', status: 'succeeded' }); // a duplicate delivery
    expect(task.next()).toEqual({ step: 'query', notBefore: T0, why: 'confirm' });
    queried(task, { status: 'succeeded', at: T0 + 5_000 });
    expect(task.next()).toEqual({ step: 'done', status: 'succeeded' });

    const noStatus = submitted(review());
    noStatus.apply({ type: 'callback', taskId: 't1' });
    expect(noStatus.next()).toMatchObject({ step: 'query', why: 'confirm' });
  });

  it('a callback during a query is answered by that query if final, else by one more', () => {
    const task = submitted(review());
    task.apply({ type: 'querySent' });
    task.apply({ type: 'callback', taskId: 't1', status: 'completed' });
    task.apply({ type: 'answered', status: 'processing', at: T0 + 2_000 });
    expect(task.next()).toEqual({ step: 'query', notBefore: T0 + 4_000, why: 'confirm' });
    queried(task, { status: 'completed', at: T0 + 4_000 });
    expect(task.next().step).toBe('done');
  });

  it("ignores another task's callback; one that came before the submit's answer is read once the id is known", () => {
    const task = submitted(video(), 't1');
    task.apply({ type: 'callback', taskId: 'orphan', status: 'succeeded' });
    expect(task.next().step).toBe('wait');

    const fast = new RemoteTask(review());
    fast.apply({ type: 'callback', taskId: 't9', status: 'completed' });
    fast.apply({ type: 'callback', taskId: 't1', status: 'cancelled' });
    fast.apply({ type: 'submitted', taskId: 't1', at: T0 });
    expect(fast.next()).toEqual({ step: 'query', notBefore: T0 + 2_000, why: 'confirm' });
  });
});

describe('RemoteTask: lost answers and ambiguous submits (spec: Errors)', () => {
  it('a review query whose answer was lost is never repeated until its own callback reports another final state (issue 36, 9)', () => {
    const task = submitted(review());
    task.apply({ type: 'querySent' });
    task.apply({ type: 'answerLost', at: T0 + 5_000 });
    // No fallback poll: the lost answer may have been `cancelled`. It waits for the callback, until the time-out.
    expect(task.next()).toEqual({ step: 'wait', forCallback: true });
    task.apply({ type: 'callback', status: 'completed' }); // names no task: cannot tell
    task.apply({ type: 'callback', taskId: 't1', status: 'processing' });
    task.apply({ type: 'callback', taskId: 'other', status: 'completed' });
    expect(task.next()).toEqual({ step: 'wait', forCallback: true });
    // A final state never changes: `completed` now means the lost answer was not `cancelled`.
    task.apply({ type: 'callback', taskId: 't1', status: 'completed' });
    expect(task.next()).toEqual({ step: 'query', notBefore: T0 + 7_000, why: 'confirm' });
    queried(task, { status: 'completed', at: T0 + 7_000 });
    expect(task.next()).toEqual({ step: 'done', status: 'completed' });

    const timedOut = submitted(review());
    timedOut.apply({ type: 'querySent' });
    timedOut.apply({ type: 'answerLost', at: T0 });
    timedOut.apply({ type: 'timedOut' });
    expect(timedOut.next()).toEqual({ step: 'done', status: 'timed out' });
  });

  it('a lost answer, then its callback reports cancelled: neither a query nor the body decides, the state is unknown (issue 36, 9)', () => {
    const task = submitted(review());
    task.apply({ type: 'querySent' });
    task.apply({ type: 'answerLost', at: T0 });
    task.apply({ type: 'callback', taskId: 't1', status: 'cancelled' });
    expect(task.next()).toEqual({ step: 'done', status: ANSWER_LOST });
  });

  it('its own cancelled callback came while the query whose answer was lost was in flight: the state is unknown at once (soak seed 90210, j0307)', () => {
    const task = submitted(review());
    task.apply({ type: 'querySent' });
    task.apply({ type: 'callback', taskId: 't1', status: 'cancelled' });
    task.apply({ type: 'answerLost', at: T0 + 3_000 });
    // Waiting for another callback would wait for one that never comes (a final state is called back once).
    expect(task.next()).toEqual({ step: 'done', status: ANSWER_LOST });
  });

  it("a lost answer after the task's callback reported completed is queried again: it cannot have been cancelled", () => {
    const task = submitted(review());
    task.apply({ type: 'querySent' });
    task.apply({ type: 'callback', taskId: 't1', status: 'completed' });
    task.apply({ type: 'answerLost', at: T0 + 3_000 });
    expect(task.next()).toEqual({ step: 'query', notBefore: T0 + 5_000, why: 'confirm' });
  });

  it('a polling job waits for the callback too when its submit sent an address (final states are forwarded)', () => {
    const task = submitted(review({ callbacks: false }));
    task.apply({ type: 'querySent' });
    task.apply({ type: 'answerLost', at: T0 + 4_000 });
    expect(task.next()).toEqual({ step: 'wait', forCallback: true });
  });

  it('without a callback address a lost review answer is never queried again: the state is unknown (issue 36, 9)', () => {
    const task = new RemoteTask(review({ callbacks: false }));
    task.apply({ type: 'submitted', taskId: 't1', at: T0, callbackSent: false });
    task.apply({ type: 'querySent' });
    task.apply({ type: 'answerLost', at: T0 + 500 });
    expect(task.next()).toEqual({ step: 'done', status: ANSWER_LOST });
    expect(() => task.apply({ type: 'querySent' })).toThrow(/querySent in phase final/);
  });

  it('a video query whose answer was lost is queried again after the network backoff: no rule forbids it', () => {
    const task = submitted(video());
    task.apply({ type: 'querySent' });
    task.apply({ type: 'answerLost', at: T0 + 500 });
    // The lost query failed as far as the run knows: the 1 s step of the 1/2/4 s backoff, as after a reset.
    expect(task.next()).toEqual({ step: 'query', notBefore: T0 + 1_500, why: 'poll' });
  });

  it('a poll stopped for a callback is followed by one confirming query, paced from the stop', () => {
    const task = submitted(review());
    task.apply({ type: 'querySent' });
    task.apply({ type: 'callback', taskId: 't1', status: 'completed' });
    task.apply({ type: 'stopped', at: T0 + 9_000 });
    expect(task.next()).toEqual({ step: 'query', notBefore: T0 + 11_000, why: 'confirm' });
  });

  it('a task a callback named is read by its own record; the batch that claims it keeps that pacing (issue 36, 1)', () => {
    const named = new RemoteTask(review());
    named.apply({ type: 'named', taskId: 'rv-7' });
    expect(named.next()).toEqual({ step: 'query', notBefore: 0, why: 'confirm' });
    named.apply({ type: 'querySent' });
    named.apply({ type: 'queryFailed', at: T0, retryAfterMs: 6_000 });
    expect(named.pacing).toEqual({ notBefore: T0 + 6_000, retryAfterMs: 0, networkFailures: 0 });
    const batch = submitted(review(), 'rv-7');
    batch.apply({ type: 'paced', ...named.pacing });
    batch.apply({ type: 'callback', taskId: 'rv-7', status: 'completed' });
    expect(batch.next()).toEqual({ step: 'query', notBefore: T0 + 6_000, why: 'confirm' });
  });

  it('remembers that its submit was ambiguous (an orphan of it may exist; issue 36, 8)', () => {
    const task = new RemoteTask(video());
    expect(task.wasAmbiguous).toBe(false);
    task.apply({ type: 'submitAmbiguous' });
    task.apply({ type: 'resubmit' });
    task.apply({ type: 'submitted', taskId: 'v2', at: T0 });
    expect(task.wasAmbiguous).toBe(true);
  });

  it('an ambiguous submit queries nothing until the run adopts a task, or resubmits (opted in)', () => {
    const task = new RemoteTask(review());
    task.apply({ type: 'submitAmbiguous' });
    task.apply({ type: 'callback', taskId: 'rv-7', status: 'completed' });
    expect(task.next()).toEqual({ step: 'wait', forCallback: true });
    task.apply({ type: 'adopted', taskId: 'rv-7', status: 'completed', at: T0 });
    expect(task.next()).toEqual({ step: 'done', status: 'completed' });

    const again = new RemoteTask(review());
    again.apply({ type: 'submitAmbiguous' });
    again.apply({ type: 'resubmit' });
    expect(again.phase).toBe('submitting');
    expect(() => new RemoteTask(review()).apply({ type: 'resubmit' })).toThrow(/resubmit in phase submitting/);
  });
});

describe('RemoteTask: the transition table', () => {
  it('names every phase, and only one query is ever under way', () => {
    const phases: RemoteTaskPhase[] = [
      'waiting_for_quota',
      'submitting',
      'ambiguous',
      'waiting',
      'confirming',
      'querying',
      'unknown',
      'final',
    ];
    expect(Object.keys(TRANSITIONS).sort()).toEqual([...phases].sort());
    expect(phases.filter((p) => TRANSITIONS[p].includes('querySent'))).toEqual(['waiting', 'confirming', 'unknown']);
    const task = submitted(review());
    task.apply({ type: 'querySent' });
    expect(() => task.apply({ type: 'querySent' })).toThrow(/querySent in phase querying/);
  });
});

describe("RemoteTask: the provider's quota (issue 26)", () => {
  it('a queued create waits for its grant with nothing sent; a refused one (429) waits again; then it is created', () => {
    const task = new RemoteTask(video());
    task.apply({ type: 'queued' });
    expect(task.phase).toBe('waiting_for_quota');
    expect(task.next()).toEqual({ step: 'wait', forCallback: false });
    // Nothing was created: a callback cannot be this task's, and moves nothing.
    task.apply({ type: 'callback', taskId: 'someone-else', status: 'succeeded' });
    expect(task.phase).toBe('waiting_for_quota');
    expect(() => task.apply({ type: 'querySent' })).toThrow(/querySent in phase waiting_for_quota/);
    task.apply({ type: 'admitted' });
    expect(task.phase).toBe('submitting');
    task.apply({ type: 'queued' }); // the provider refused the granted create
    task.apply({ type: 'admitted' });
    task.apply({ type: 'submitted', taskId: 't1', at: T0 });
    expect(task.phase).toBe('waiting');
  });

  it('a job that times out while waiting for quota ends without a task', () => {
    const task = new RemoteTask(video());
    task.apply({ type: 'queued' });
    task.apply({ type: 'timedOut' });
    expect(task.next()).toEqual({ step: 'done', status: 'timed out' });
    expect(task.taskId).toBeUndefined();
  });
});
