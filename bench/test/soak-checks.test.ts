// The soak's verdict on crafted evidence: lost jobs and wrong outcomes; every second video task and every
// extra review task a duplicate, polling or not; opted-in resubmits counted apart only when the option's
// promise held; SubmitUnconfirmed correct only with an ambiguous answer and nothing that could confirm it.
// Notifications: every job that ended has its outcome's notification taken with a valid signature, copies
// of an id counted as duplicates; the receiver's faults armed one at a time from the seed.
import { describe, expect, it } from 'vitest';
import { ambiguousAnswer, verdictOf, verdictOk, type SandboxSnapshot } from '../soak/checks.js';
import type { JobRecord } from '../soak/driver.js';
import { planJobs, type SoakJob } from '../soak/jobs.js';
import { notificationsOk, notificationVerdict, undelivered } from '../soak/notifications.js';
import { Rng } from '../soak/rng.js';
import { WebhookFaults } from '../soak/webhook-faults.js';
import { newNotifySecret, signNotification } from '../../src/notify/signing.js';
import { DEFAULT_TIMING } from '../../src/job/input.js';
import type {
  CallbackLogEntry,
  ReceivedWebhook,
  RequestLogEntry,
  ReviewTaskSummary,
  VideoTaskSummary,
  WebhookFault,
} from 'temporal-review-video-sandbox';

const jobs = planJobs(60, 'rtest', new Rng(7), { ...DEFAULT_TIMING });
const succeeding = jobs.filter((j) => j.kind === 'succeed');
const cb = succeeding.filter((j) => j.callbacks);
const poll = succeeding.filter((j) => !j.callbacks);
const opts = { minQueryIntervalMs: 500, clientTimeoutMs: 2_000 };
const CALLBACK_URL = 'http://127.0.0.1:9/callbacks/video/x?sig=s';

let seq = 0;
function task(job: SoakJob, id: string, createdAt: number, status = 'succeeded'): VideoTaskSummary {
  return { id, status, model: String(job.input.task.model), body: job.input.task, createdAt };
}
function create(job: SoakJob, at: number, taskId?: string, extra: Partial<RequestLogEntry> = {}): RequestLogEntry {
  return {
    seq: ++seq,
    at,
    service: 'video',
    operation: 'video.create',
    method: 'POST',
    path: '/v1/task/create',
    headers: { authorization: 'Bearer k' },
    body: { ...job.input.task, callback_url: CALLBACK_URL },
    status: 200,
    ...(taskId ? { taskId } : {}),
    ...extra,
  };
}
function imageUrl(job: SoakJob): string {
  return `https://cdn.example.com/soak/${job.id}/portrait.jpg`;
}
function submit(
  job: SoakJob,
  at: number,
  taskId?: string,
  extra: Partial<RequestLogEntry> = {},
  sync = false,
): RequestLogEntry {
  return {
    seq: ++seq,
    at,
    service: 'review',
    operation: sync ? 'review.submitSync' : 'review.submitAsync',
    method: 'POST',
    path: sync ? '/api/asset/upload/sync' : '/api/asset/upload/async',
    headers: { 'x-access-token': 't', 'x-track-id': '0123456789abcdef0123456789abcdef' },
    body: { images: [imageUrl(job)], asset_type: 'Image', ...(sync ? {} : { callback_url: CALLBACK_URL }) },
    status: 202,
    ...(taskId ? { taskId } : {}),
    ...extra,
  };
}
function reviewTask(job: SoakJob, taskId: string, createdAt: number): ReviewTaskSummary {
  return { taskId, status: 'completed', urls: [imageUrl(job)], createdAt };
}
function callback(
  taskId: string,
  at: number,
  outcome: CallbackLogEntry['outcome'],
  kind: CallbackLogEntry['kind'] = 'video',
): CallbackLogEntry {
  return {
    at,
    kind,
    url: 'http://receiver/callbacks/video/x',
    taskId,
    status: kind === 'video' ? 'running' : 'completed',
    payload: {},
    outcome,
  };
}
function succeeded(job: SoakJob, taskId: string): JobRecord {
  return { job, outcome: 'succeeded', taskId, startAttempts: 1, startedAt: 0, endedAt: 100_000 };
}
function unconfirmedRecord(
  job: SoakJob,
  stage: 'reviewing' | 'creating',
  lastError = '500 from the service',
  endedAt = 200_000,
): JobRecord {
  return {
    job,
    outcome: 'SubmitUnconfirmed',
    startAttempts: 1,
    startedAt: 0,
    endedAt,
    error: 'Workflow execution failed: the submit got no clear answer',
    details: {
      stage,
      callbackSent: true,
      lastError,
      ...(stage === 'reviewing' ? { urls: [imageUrl(job)] } : { model: job.input.task.model }),
    },
  };
}
const empty = (): SandboxSnapshot => ({ requests: [], callbacks: [], videoTasks: [], reviewTasks: [] });

describe('soak verdict: outcomes', () => {
  it('a job not finished or with another outcome is lost; a succeeded job must name a succeeded task', () => {
    const [ok, wrong] = cb as [SoakJob, SoakJob];
    const rejected = jobs.find((j) => j.kind === 'rejected')!;
    const snapshot: SandboxSnapshot = {
      ...empty(),
      requests: [create(ok, 1_000, 'a1'), create(wrong, 1_000, 'e1')],
      videoTasks: [task(ok, 'a1', 1_000), task(wrong, 'e1', 1_000, 'failed')],
    };
    const records: JobRecord[] = [
      succeeded(ok, 'a1'),
      succeeded(wrong, 'e1'),
      { job: rejected, outcome: 'not finished', startAttempts: 1 },
    ];
    const v = verdictOf(records, snapshot, new Map(), opts);
    expect(v.lost.map((l) => l.workflowId)).toEqual([wrong.workflowId, rejected.workflowId]);
    expect(v.jobs).toMatchObject({ planned: 3, finished: 1, unconfirmed: 0, lost: 2, notFinished: 1, wrongOutcome: 1 });
    expect(verdictOk(v)).toBe(false);
  });
});

describe('soak verdict: duplicates', () => {
  it('every second video task is a duplicate, for a polling job after an ambiguous create too (no by-design category)', () => {
    const [pollJob] = poll as [SoakJob];
    const [cbJob] = cb as [SoakJob];
    const snapshot: SandboxSnapshot = {
      ...empty(),
      requests: [
        create(pollJob, 1_000, 'p1', { fault: 'status:500:commit', status: 500 }),
        create(pollJob, 20_000, 'p2'),
        create(cbJob, 1_000, 'c1', { fault: 'reset:commit', status: 0 }),
        create(cbJob, 20_000, 'c2'),
      ],
      // No callback of either first task ever arrived: still duplicates, neither job opted in.
      callbacks: [callback('p1', 3_000, 'dropped'), callback('c1', 3_000, 'error')],
      videoTasks: [
        task(pollJob, 'p1', 1_000),
        task(pollJob, 'p2', 20_000),
        task(cbJob, 'c1', 1_000),
        task(cbJob, 'c2', 20_000),
      ],
    };
    const histories = new Map([
      [pollJob.workflowId, '{"type":"CreateAmbiguous"}'],
      [cbJob.workflowId, '{"type":"CreateAmbiguous"}'],
    ]);
    const v = verdictOf([succeeded(pollJob, 'p2'), succeeded(cbJob, 'c2')], snapshot, histories, opts);
    expect(v.duplicateVideoTasks).toBe(2);
    expect(v.duplicates.map((d) => d.workflowId).sort()).toEqual([pollJob.workflowId, cbJob.workflowId].sort());
    expect(v.duplicates[0]!.detail).toMatch(/2 video tasks/);
    expect(v.optedIn).toMatchObject({ videoTasks: 0, reviewTasks: 0 });
    expect(v.lost).toEqual([]);
    expect(verdictOk(v)).toBe(false);
  });

  it('a review task beyond one per batch is a duplicate review task and fails the soak', () => {
    const [job] = poll as [SoakJob];
    const twoBatches = jobs.find((j) => j.kind === 'succeed-two-batches')!;
    const videoUrl = `https://cdn.example.com/soak/${twoBatches.id}/motion.mp4`;
    const snapshot: SandboxSnapshot = {
      ...empty(),
      requests: [
        submit(job, 500, 'rv1', { fault: 'hang:3000:commit' }),
        submit(job, 20_000, 'rv2'),
        create(job, 30_000, 't1'),
        create(twoBatches, 30_000, 't2'),
      ],
      videoTasks: [task(job, 't1', 30_000), task(twoBatches, 't2', 30_000)],
      // Two batches of one job (image and video) are one task each: no duplicate.
      reviewTasks: [
        reviewTask(job, 'rv1', 500),
        reviewTask(job, 'rv2', 20_000),
        {
          taskId: 'rv3',
          status: 'completed',
          urls: [`https://cdn.example.com/soak/${twoBatches.id}/portrait.jpg`],
          createdAt: 500,
        },
        { taskId: 'rv4', status: 'completed', urls: [videoUrl], createdAt: 500 },
      ],
    };
    const v = verdictOf(
      [succeeded(job, 't1'), succeeded(twoBatches, 't2')],
      snapshot,
      new Map([[job.workflowId, '{"type":"CreateAmbiguous"}']]),
      opts,
    );
    expect(v.duplicateReviewTasks).toBe(1);
    expect(v.reviewDuplicates.map((d) => d.workflowId)).toEqual([job.workflowId]);
    expect(v.reviewDuplicates[0]!.detail).toMatch(/2 review tasks for the image batch: rv1 .*rv2/);
    expect(v.duplicateVideoTasks).toBe(0);
    expect(verdictOk(v)).toBe(false);
  });

  it('an opted-in job: a resubmit after an ambiguous answer nothing confirmed is counted apart; after a delivered callback it is a duplicate', () => {
    const [asPromised, ignoredCallback] = cb.map((j) => ({
      ...j,
      optedIn: true,
      input: { ...j.input, resubmitOnAmbiguity: true },
    })) as [SoakJob, SoakJob];
    const snapshot: SandboxSnapshot = {
      ...empty(),
      requests: [
        create(asPromised, 1_000, 'o1', { fault: 'status:500:commit', status: 500 }),
        create(asPromised, 16_000, 'o2'),
        create(ignoredCallback, 1_000, 'i1', { fault: 'status:500:commit', status: 500 }),
        create(ignoredCallback, 16_000, 'i2'),
      ],
      callbacks: [
        callback('o1', 2_000, 'dropped'),
        callback('o1', 11_000, 'error'),
        callback('i1', 2_000, 'delivered'),
      ],
      videoTasks: [
        task(asPromised, 'o1', 1_000, 'cancelled'),
        task(asPromised, 'o2', 16_000),
        task(ignoredCallback, 'i1', 1_000),
        task(ignoredCallback, 'i2', 16_000),
      ],
    };
    const ambiguous = '{"type":"CreateAmbiguous"}';
    const histories = new Map([
      [asPromised.workflowId, ambiguous],
      [ignoredCallback.workflowId, ambiguous],
    ]);
    const v = verdictOf([succeeded(asPromised, 'o2'), succeeded(ignoredCallback, 'i2')], snapshot, histories, opts);
    expect(v.jobs.optedIn).toBe(2);
    expect(v.optedIn.videoTasks).toBe(1);
    expect(v.optedIn.problems.map((p) => p.workflowId)).toEqual([asPromised.workflowId]);
    expect(v.duplicates.map((d) => d.workflowId)).toEqual([ignoredCallback.workflowId]);
    expect(v.duplicateVideoTasks).toBe(1);
  });
});

describe('soak verdict: no blind resubmit, no duplicate, the backoff', () => {
  it('a submit or create sent again after an ambiguous answer is a violation unless the job opted in, even without a second task', () => {
    const [blind, optedIn] = poll as [SoakJob, SoakJob];
    const opted = { ...optedIn, optedIn: true };
    const snapshot: SandboxSnapshot = {
      ...empty(),
      requests: [
        submit(blind, 100, 'rv1'),
        create(blind, 5_000, undefined, { fault: 'status:500', status: 500 }),
        create(blind, 10_000, 't1'),
        // A 429 or 503 was not processed: trying again is no resubmit.
        submit(opted, 100, undefined, { fault: 'status:503', status: 503 }),
        submit(opted, 1_100, 'rv2'),
        create(opted, 5_000, undefined, { fault: 'reset', status: 0 }),
        create(opted, 21_000, 't2'),
      ],
      videoTasks: [task(blind, 't1', 10_000), task(opted, 't2', 21_000)],
      reviewTasks: [reviewTask(blind, 'rv1', 100), reviewTask(opted, 'rv2', 1_100)],
    };
    const v = verdictOf([succeeded(blind, 't1'), succeeded(opted, 't2')], snapshot, new Map(), opts);
    expect(v.violationsByRule).toEqual({ 'video.duplicate-create': 1 });
    const blindCreate = snapshot.requests[2]!;
    expect(v.violations[0]!.detail).toMatch(
      new RegExp(`^#${blindCreate.seq}: create .*after #${blindCreate.seq - 1} got no clear answer \\(HTTP 500\\)`),
    );
    expect(v.optedIn.resubmits).toBe(1);
    expect(v.duplicateVideoTasks).toBe(0);
    expect(verdictOk(v)).toBe(false);
  });

  it("a job's submit sent again after its answer named the task is a duplicate; another job's of the same media is not", () => {
    const [job, other] = cb as [SoakJob, SoakJob];
    const seen = (e: RequestLogEntry) => ({ ...e, response: { code: 202, task_id: e.taskId, status: 'pending' } });
    const otherSubmit = seen(submit(other, 200, 'rv3'));
    // The other job submits the job's own media: a different job, no duplicate.
    otherSubmit.body = { images: [imageUrl(other), imageUrl(job)], callback_url: CALLBACK_URL };
    const snapshot: SandboxSnapshot = {
      ...empty(),
      requests: [seen(submit(job, 100, 'rv1')), otherSubmit, seen(submit(job, 5_000, 'rv2'))],
      reviewTasks: [reviewTask(job, 'rv1', 100), reviewTask(other, 'rv3', 200), reviewTask(job, 'rv2', 5_000)],
    };
    const v = verdictOf([succeeded(job, 't1'), succeeded(other, 't3')], snapshot, new Map(), opts);
    expect(v.violationsByRule).toEqual({ 'review.duplicate-submit': 1 });
    expect(v.violations.find((x) => x.rule === 'review.duplicate-submit')!.detail).toContain('gave it task rv1');
  });

  it('failed review queries retried sooner than 1 s, 2 s, 4 s are a violation', () => {
    const [job] = cb as [SoakJob];
    const failed = (at: number): RequestLogEntry => ({
      ...submit(job, at),
      operation: 'review.query',
      method: 'GET',
      path: '/api/task/rv1',
      body: undefined,
      taskId: 'rv1',
      status: 0,
      fault: 'reset',
    });
    const snapshot: SandboxSnapshot = {
      ...empty(),
      requests: [submit(job, 0, 'rv1'), failed(1_000), failed(2_000), failed(4_000), failed(6_000)],
      reviewTasks: [reviewTask(job, 'rv1', 0)],
    };
    const v = verdictOf([succeeded(job, 't1')], snapshot, new Map(), opts);
    // 1 s, then 2 s kept; 2 s after the third failure is short of 4 s.
    expect(v.violationsByRule).toMatchObject({ 'review.backoff': 1 });
  });
});

describe('soak verdict: SubmitUnconfirmed', () => {
  it('correct when the create got an ambiguous fault before commit and no task was made', () => {
    const [job] = poll as [SoakJob];
    const snapshot: SandboxSnapshot = {
      ...empty(),
      requests: [submit(job, 100, 'rv1'), create(job, 5_000, undefined, { fault: 'status:500', status: 500 })],
      reviewTasks: [reviewTask(job, 'rv1', 100)],
    };
    const v = verdictOf([unconfirmedRecord(job, 'creating')], snapshot, new Map(), opts);
    expect(v.lost).toEqual([]);
    expect(v.jobs).toMatchObject({ finished: 0, unconfirmed: 1, lost: 0 });
    expect(v.unconfirmed[0]!.detail).toMatch(/no task made; #\d+ video.create fault status:500/);
    expect(v.unconfirmedByReason).toEqual({ 'create: no task made (fault before commit)': 1 });
    expect(verdictOk(v)).toBe(true);
  });

  it('correct when the review task was made but its only callback was dropped', () => {
    const [job] = cb as [SoakJob];
    const snapshot: SandboxSnapshot = {
      ...empty(),
      requests: [submit(job, 100, 'rv1', { fault: 'reset:commit', status: 0 })],
      callbacks: [callback('rv1', 1_200, 'dropped', 'review')],
      reviewTasks: [reviewTask(job, 'rv1', 100)],
    };
    const v = verdictOf([unconfirmedRecord(job, 'reviewing')], snapshot, new Map(), opts);
    expect(v.jobs).toMatchObject({ unconfirmed: 1, lost: 0 });
    expect(v.unconfirmedByReason).toEqual({ 'review: task made, its callbacks never reached the run': 1 });
    expect(v.unconfirmed[0]!.detail).toMatch(/rv1: completed dropped/);
  });

  it('correct after an ambiguous sync submit (nothing can confirm it), and after an attempt lost with its worker', () => {
    const sync = jobs.find((j) => j.kind === 'succeed-sync-review')!;
    const [lostAttempt] = cb as [SoakJob];
    const snapshot: SandboxSnapshot = {
      ...empty(),
      requests: [
        submit(sync, 100, 'rs1', { fault: 'status:500:commit', status: 500 }, true),
        submit(lostAttempt, 100, 'rv1'),
      ],
      reviewTasks: [{ ...reviewTask(sync, 'rs1', 100), urls: [imageUrl(sync)] }, reviewTask(lostAttempt, 'rv1', 100)],
    };
    const records = [
      unconfirmedRecord(sync, 'reviewing'),
      unconfirmedRecord(
        lostAttempt,
        'creating',
        'a previous create attempt ended without an answer (worker lost or timed out); a task may exist',
      ),
    ];
    const v = verdictOf(records, snapshot, new Map(), opts);
    expect(v.lost).toEqual([]);
    expect(v.unconfirmedByReason).toEqual({
      'review: sync submit (no callback can confirm it)': 1,
      'create: no task made (attempt lost with its worker)': 1,
    });
  });

  it('lost when the task was made and its callback was delivered while the run waited', () => {
    const [job] = poll as [SoakJob];
    const snapshot: SandboxSnapshot = {
      ...empty(),
      requests: [submit(job, 100, 'rv1'), create(job, 5_000, 't1', { fault: 'hang:3000:commit', clientGone: true })],
      callbacks: [callback('t1', 6_000, 'dropped'), callback('t1', 15_000, 'delivered')],
      videoTasks: [task(job, 't1', 5_000)],
      reviewTasks: [reviewTask(job, 'rv1', 100)],
    };
    const v = verdictOf([unconfirmedRecord(job, 'creating')], snapshot, new Map(), opts);
    expect(v.jobs).toMatchObject({ unconfirmed: 0, lost: 1, wrongOutcome: 1 });
    expect(v.lost[0]!.detail).toMatch(
      /task t1 was made .* its callback \(running\) was delivered while the run waited/,
    );
    expect(verdictOk(v)).toBe(false);
  });

  it("lost when the run's history names the task, though the sandbox logged the callback as failed (the receiver signalled late)", () => {
    const [job] = cb as [SoakJob];
    const snapshot: SandboxSnapshot = {
      ...empty(),
      requests: [submit(job, 100, 'rv1', { fault: 'status:500:commit', status: 500 })],
      callbacks: [callback('rv1', 1_200, 'error', 'review')],
      reviewTasks: [reviewTask(job, 'rv1', 100)],
    };
    const history = '{"signalName":"reviewCallback","input":{"taskId":"rv1"}}';
    const v = verdictOf([unconfirmedRecord(job, 'reviewing')], snapshot, new Map([[job.workflowId, history]]), opts);
    expect(v.jobs).toMatchObject({ unconfirmed: 0, lost: 1 });
    expect(v.lost[0]!.detail).toMatch(/history names it/);
  });

  it('a callback delivered only after the run ended does not make it lost', () => {
    const [job] = cb as [SoakJob];
    const snapshot: SandboxSnapshot = {
      ...empty(),
      requests: [submit(job, 100, 'rv1', { fault: 'status:500:commit', status: 500 })],
      callbacks: [callback('rv1', 250_000, 'delivered', 'review')],
      reviewTasks: [reviewTask(job, 'rv1', 100)],
    };
    expect(verdictOf([unconfirmedRecord(job, 'reviewing')], snapshot, new Map(), opts).jobs).toMatchObject({
      unconfirmed: 1,
      lost: 0,
    });
  });

  it('lost without an ambiguous answer, or when the submit carried no callback address', () => {
    const [clean, noAddress] = cb as [SoakJob, SoakJob];
    const withoutAddress = submit(noAddress, 100, undefined, { fault: 'status:500', status: 500 });
    delete (withoutAddress.body as { callback_url?: string }).callback_url;
    const snapshot: SandboxSnapshot = {
      ...empty(),
      requests: [submit(clean, 100, 'rv1'), withoutAddress],
      reviewTasks: [reviewTask(clean, 'rv1', 100)],
    };
    const v = verdictOf(
      [unconfirmedRecord(clean, 'reviewing'), unconfirmedRecord(noAddress, 'reviewing')],
      snapshot,
      new Map(),
      opts,
    );
    expect(v.jobs).toMatchObject({ unconfirmed: 0, lost: 2 });
    expect(v.lost[0]!.detail).toMatch(/no ambiguous answer/);
    expect(v.lost[1]!.detail).toMatch(/carried no callback_url/);
  });

  it('a video task for a job whose review was not confirmed is a rule violation', () => {
    const [job] = cb as [SoakJob];
    const snapshot: SandboxSnapshot = {
      ...empty(),
      requests: [submit(job, 100, undefined, { fault: 'status:500', status: 500 })],
      videoTasks: [task(job, 'x1', 1)],
    };
    const v = verdictOf([unconfirmedRecord(job, 'reviewing')], snapshot, new Map(), opts);
    expect(v.violationsByRule).toEqual({ 'video.create-after-review-failed': 1 });
  });

  it('ambiguous answers: 5xx but 503, hangs (a 504, or no answer), resets, unreadable bodies, answers the client never got', () => {
    const e = (extra: Partial<RequestLogEntry>): RequestLogEntry => ({ ...create(cb[0]!, 0), ...extra });
    expect(ambiguousAnswer(e({ fault: 'status:500' }), 2_000)).toBe(true);
    expect(ambiguousAnswer(e({ fault: 'status:500:commit' }), 2_000)).toBe(true);
    expect(ambiguousAnswer(e({ fault: 'status:503' }), 2_000)).toBe(false);
    expect(ambiguousAnswer(e({ fault: 'status:429' }), 2_000)).toBe(false);
    expect(ambiguousAnswer(e({ fault: 'hang:3000', status: 504 }), 2_000)).toBe(true);
    expect(ambiguousAnswer(e({ fault: 'hang:3000:commit', clientGone: true }), 2_000)).toBe(true);
    // Waited out (a sync submit): the client got the real answer.
    expect(ambiguousAnswer(e({ fault: 'hang:3000:commit' }), 2_000)).toBe(false);
    expect(ambiguousAnswer(e({ fault: 'reset' }), 2_000)).toBe(true);
    expect(ambiguousAnswer(e({ fault: 'malformed' }), 2_000)).toBe(true);
    expect(ambiguousAnswer(e({ clientGone: true }), 2_000)).toBe(true);
    expect(ambiguousAnswer(e({}), 2_000)).toBe(false);
  });
});

describe('soak verdict: a review answer lost with its worker', () => {
  const timedOut = (job: SoakJob): JobRecord => ({
    job,
    outcome: 'ReviewTimedOut',
    startAttempts: 1,
    startedAt: 0,
    endedAt: 200_000,
    error: 'Workflow execution failed: review task rv1 not final after 120000 ms',
  });
  const lostAnswer = '{"failure":{"applicationFailureInfo":{"type":"QueryAnswerLost"}}}';
  const snapshotWith = (job: SoakJob, fate: CallbackLogEntry['outcome']): SandboxSnapshot => ({
    ...empty(),
    requests: [submit(job, 100, 'rv1')],
    callbacks: [callback('rv1', 1_200, fate, 'review')],
    reviewTasks: [reviewTask(job, 'rv1', 100)],
  });

  it("ReviewTimedOut is correct when a query's answer was lost and the final callback never reached the run", () => {
    const [job] = cb as [SoakJob];
    const v = verdictOf([timedOut(job)], snapshotWith(job, 'error'), new Map([[job.workflowId, lostAnswer]]), opts);
    expect(v.jobs).toMatchObject({ unconfirmed: 1, lost: 0 });
    expect(v.unconfirmedByReason).toEqual({ 'review: answer lost, no final callback reached the run': 1 });
  });

  it("two batches: the other batch's delivered callback does not count against the task the failure names", () => {
    const [job] = cb as [SoakJob];
    const snapshot: SandboxSnapshot = {
      ...empty(),
      requests: [submit(job, 100, 'rv1'), submit(job, 100, 'rv2')],
      callbacks: [callback('rv1', 1_200, 'error', 'review'), callback('rv2', 1_300, 'delivered', 'review')],
      reviewTasks: [reviewTask(job, 'rv1', 100), reviewTask(job, 'rv2', 100)],
    };
    const v = verdictOf([timedOut(job)], snapshot, new Map([[job.workflowId, lostAnswer]]), opts);
    expect(v.jobs).toMatchObject({ unconfirmed: 1, lost: 0 });
  });

  it('lost when the final callback was delivered, or when no answer was lost', () => {
    const [a, b] = cb as [SoakJob, SoakJob];
    const delivered = verdictOf(
      [timedOut(a)],
      snapshotWith(a, 'delivered'),
      new Map([[a.workflowId, lostAnswer]]),
      opts,
    );
    expect(delivered.jobs).toMatchObject({ unconfirmed: 0, lost: 1 });
    expect(delivered.lost[0]!.detail).toMatch(/final callback \(completed\) was delivered/);
    const noLoss = verdictOf([timedOut(b)], snapshotWith(b, 'error'), new Map([[b.workflowId, '{}']]), opts);
    expect(noLoss.jobs).toMatchObject({ unconfirmed: 0, lost: 1 });
    expect(noLoss.lost[0]!.detail).toMatch(/no review query of the run lost its answer/);
  });
});

describe('soak verdict: spec rules', () => {
  it('an answer held back past the client time-out was not seen: querying again is no violation, unlike after a seen answer', () => {
    const headers = { 'x-access-token': 't', 'x-track-id': '0123456789abcdef0123456789abcdef' };
    const query = (at: number, fault?: string): RequestLogEntry => ({
      seq: ++seq,
      at,
      service: 'review',
      operation: 'review.query',
      method: 'GET',
      path: '/api/task/rv-1',
      headers,
      body: undefined,
      status: 200,
      taskId: 'rv-1',
      response: { task_id: 'rv-1', status: 'cancelled' },
      ...(fault ? { fault } : {}),
    });
    const verdictFor = (requests: RequestLogEntry[]) => verdictOf([], { ...empty(), requests }, new Map(), opts);
    expect(verdictFor([query(0, 'hang:3000:commit'), query(4_000)]).violations).toEqual([]);
    expect(verdictFor([query(0, 'hang:1000:commit'), query(4_000)]).violationsByRule).toEqual({
      'review.query-after-cancel': 1,
    });
    expect(verdictFor([query(0), query(4_000)]).violationsByRule).toEqual({ 'review.query-after-cancel': 1 });
  });

  it('a video task for a job whose review did not pass is a rule violation', () => {
    const rejected = jobs.find((j) => j.kind === 'rejected')!;
    const snapshot: SandboxSnapshot = { ...empty(), videoTasks: [task(rejected, 'x1', 1)] };
    const v = verdictOf([{ job: rejected, outcome: 'ReviewRejected', startAttempts: 1 }], snapshot, new Map(), opts);
    expect(v.violationsByRule).toEqual({ 'video.create-after-review-failed': 1 });
    expect(v.jobs.lost).toBe(0);
  });
});

const NOTIFY_SECRET = newNotifySecret();
let at = 1_000_000_000_000;
/** One request to the webhook receiver, signed as the worker signs it (or with `secret`). */
function notification(
  r: JobRecord,
  opts: {
    event?: string;
    body?: Record<string, unknown>;
    taken?: boolean;
    status?: number;
    fault?: WebhookFault['mode'];
    runId?: string;
    secret?: string;
  } = {},
): ReceivedWebhook {
  const event = opts.event ?? (r.outcome === 'succeeded' ? 'succeeded' : 'failed');
  const id = `${r.job.workflowId}/notify/${event}/${opts.runId ?? 'run-1'}`;
  const data =
    event === 'succeeded'
      ? { event, workflowId: r.job.workflowId, result: { taskId: r.taskId, state: 'succeeded' } }
      : { event, workflowId: r.job.workflowId, failure: { type: r.outcome, message: 'm', details: [] } };
  const body = JSON.stringify(opts.body ?? { type: `job.${event}`, timestamp: 't', data });
  at += 1_000;
  const headers = { ...signNotification(opts.secret ?? NOTIFY_SECRET, id, at / 1000, body) };
  return {
    at,
    id,
    timestamp: headers['webhook-timestamp'],
    signature: headers['webhook-signature'],
    headers,
    body,
    status: opts.status ?? 204,
    ...(opts.fault ? { fault: opts.fault } : {}),
    taken: opts.taken ?? true,
  };
}

describe('soak verdict: notifications', () => {
  const [a, b, c] = cb as [SoakJob, SoakJob, SoakJob];
  const rejected = jobs.find((j) => j.kind === 'rejected')!;
  const ok = succeeded(a, 'a1');
  const failed: JobRecord = { job: rejected, outcome: 'ReviewRejected', startAttempts: 1 };

  it('one per job that ended, taken with a valid signature; copies of an id are duplicates, refusals are not deliveries', () => {
    const unfinished: JobRecord = { job: b, outcome: 'not finished', startAttempts: 1 };
    const received = [
      notification(ok, { taken: false, status: 503, fault: 'fail' }),
      notification(ok, { taken: true, status: 500, fault: 'duplicate' }),
      notification(ok),
      notification(failed),
    ];
    const v = notificationVerdict([ok, failed, unfinished], received, NOTIFY_SECRET);
    expect(v).toMatchObject({
      expected: 2,
      delivered: 2,
      lost: 0,
      duplicates: 1,
      wrongOutcome: 0,
      badSignatures: 0,
      unexpected: 0,
      requests: 4,
      faults: { 'fail:503': 1, duplicate: 1 },
      problems: [],
    });
    expect(notificationsOk(v)).toBe(true);
    expect(undelivered([ok, failed, unfinished], received)).toBe(0);
  });

  it('a job whose notification was refused every time, or never came, is lost', () => {
    const other = succeeded(c, 'c1');
    const received = [notification(ok, { taken: false, status: 503, fault: 'fail' }), notification(failed)];
    expect(undelivered([ok, failed, other], received)).toBe(2);
    const v = notificationVerdict([ok, failed, other], received, NOTIFY_SECRET);
    expect(v).toMatchObject({ expected: 3, delivered: 1, lost: 2 });
    expect(v.problems.map((p) => [p.workflowId, p.problem, p.detail])).toEqual([
      [a.workflowId, 'lost', 'ended succeeded; 1 request(s) of it, none taken (503)'],
      [c.workflowId, 'lost', 'ended succeeded; no request of it arrived'],
    ]);
    expect(notificationsOk(v)).toBe(false);
  });

  it('a bad signature, another event or failure type, a second id for one outcome, an id of no job: each fails', () => {
    const check = (received: ReceivedWebhook[]) => {
      const v = notificationVerdict([ok, failed], received, NOTIFY_SECRET);
      expect(notificationsOk(v)).toBe(false);
      return v;
    };
    expect(check([notification(ok, { secret: newNotifySecret() }), notification(failed)])).toMatchObject({
      badSignatures: 1,
      lost: 1,
    });
    // Notified as succeeded, though the job failed: wrong, and its failure never notified.
    expect(check([notification(ok), notification(failed, { event: 'succeeded' })])).toMatchObject({
      wrongOutcome: 1,
      lost: 1,
    });
    const otherType = {
      type: 'job.failed',
      timestamp: 't',
      data: {
        event: 'failed',
        workflowId: rejected.workflowId,
        failure: { type: 'ReviewFailed', message: 'm', details: [] },
      },
    };
    const wrongType = check([notification(ok), notification(failed, { body: otherType })]);
    expect(wrongType).toMatchObject({ wrongOutcome: 1, lost: 0 });
    expect(wrongType.problems[0]!.detail).toBe("the body's failure is ReviewFailed, the job's ReviewRejected");
    expect(check([notification(ok), notification(ok, { runId: 'run-2' }), notification(failed)])).toMatchObject({
      unexpected: 1,
      duplicates: 0,
      lost: 0,
    });
    const stranger = notification({ ...ok, job: { ...a, workflowId: 'soak-nobody' } });
    expect(check([notification(ok), notification(failed), stranger])).toMatchObject({ unexpected: 1, lost: 0 });
  });
});

describe("soak: the webhook receiver's faults", () => {
  it('one armed at a time, after a seeded number of clean deliveries, none after stop', () => {
    const log: ReceivedWebhook[] = [];
    const armed: WebhookFault[] = [];
    const receiver = { received: () => log, addFault: (f: WebhookFault) => void armed.push(f) };
    const faults = new WebhookFaults(receiver, new Rng(3), [2, 2]);
    const record = succeeded(cb[0]!, 'a1');
    const arrive = (fault?: WebhookFault['mode']) => log.push(notification(record, fault ? { fault } : {}));
    faults.tick();
    arrive();
    faults.tick();
    expect(armed).toHaveLength(0);
    arrive();
    faults.tick();
    expect(armed).toHaveLength(1);
    expect(armed[0]!.times).toBe(1);
    // Still armed until a faulted delivery shows in the log: clean ones meanwhile do not count.
    arrive();
    arrive();
    arrive();
    faults.tick();
    expect(armed).toHaveLength(1);
    arrive(armed[0]!.mode);
    arrive();
    arrive();
    faults.tick();
    expect(armed).toHaveLength(2);
    expect(Object.values(faults.armedByLabel).reduce((x, y) => x + y, 0)).toBe(2);
    faults.stop();
  });
});
