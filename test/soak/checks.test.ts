// The soak's verdict on crafted evidence: a lost job, a wrong outcome, a duplicate the job could have
// avoided, and the two by-design resubmits (polling; every callback lost) each land in the right figure.
import { describe, expect, it } from 'vitest';
import { verdictOf, type SandboxSnapshot } from '../../bench/soak/checks.js';
import type { JobRecord } from '../../bench/soak/driver.js';
import { planJobs } from '../../bench/soak/jobs.js';
import { Rng } from '../../bench/soak/rng.js';
import { DEFAULT_TIMING } from '../../src/workflows/input.js';
import type { CallbackLogEntry, RequestLogEntry, VideoTaskSummary } from '../../src/sandbox/index.js';

const jobs = planJobs(40, 'rtest', new Rng(7), { ...DEFAULT_TIMING });
const succeeding = jobs.filter((j) => j.kind === 'succeed');
const cb = succeeding.filter((j) => j.callbacks);
const poll = succeeding.filter((j) => !j.callbacks);

let seq = 0;
function task(jobId: string, id: string, createdAt: number): VideoTaskSummary {
  const job = jobs.find((j) => j.id === jobId)!;
  return { id, status: 'succeeded', model: String(job.input.task.model), body: job.input.task, createdAt };
}
function create(jobId: string, at: number, taskId: string): RequestLogEntry {
  const job = jobs.find((j) => j.id === jobId)!;
  return { seq: ++seq, at, service: 'video', operation: 'video.create', method: 'POST', path: '/v1/task/create', headers: { authorization: 'Bearer k' }, body: job.input.task, status: 200, taskId };
}
function callback(taskId: string, at: number, outcome: CallbackLogEntry['outcome']): CallbackLogEntry {
  return { at, kind: 'video', url: 'http://receiver/callbacks/video/x', taskId, status: 'running', payload: {}, outcome };
}
function succeeded(job: (typeof jobs)[number], taskId: string): JobRecord {
  return { job, outcome: 'succeeded', taskId, startAttempts: 1, startedAt: 0, endedAt: 1 };
}

describe('soak verdict', () => {
  it('classifies lost jobs, duplicates and by-design resubmits', () => {
    expect(cb.length).toBeGreaterThanOrEqual(3);
    expect(poll.length).toBeGreaterThanOrEqual(2);
    const [dup, lostCb, wrong] = cb as [typeof cb[number], typeof cb[number], typeof cb[number]];
    const [pollAmbiguous, pollDup] = poll as [typeof poll[number], typeof poll[number]];
    const snapshot: SandboxSnapshot = {
      requests: [
        create(dup.id, 1_000, 'a1'), create(dup.id, 20_000, 'a2'),
        create(lostCb.id, 1_000, 'b1'), create(lostCb.id, 20_000, 'b2'),
        create(pollAmbiguous.id, 1_000, 'c1'), create(pollAmbiguous.id, 20_000, 'c2'),
        create(pollDup.id, 1_000, 'd1'), create(pollDup.id, 20_000, 'd2'),
        create(wrong.id, 1_000, 'e1'),
      ],
      // The first task of `dup` was named by a delivered callback before the resubmit; `lostCb`'s never was.
      callbacks: [callback('a1', 3_000, 'delivered'), callback('b1', 3_000, 'error'), callback('b1', 11_000, 'dropped'), callback('b1', 25_000, 'delivered')],
      videoTasks: [
        task(dup.id, 'a1', 1_000), task(dup.id, 'a2', 20_000),
        task(lostCb.id, 'b1', 1_000), task(lostCb.id, 'b2', 20_000),
        task(pollAmbiguous.id, 'c1', 1_000), task(pollAmbiguous.id, 'c2', 20_000),
        task(pollDup.id, 'd1', 1_000), task(pollDup.id, 'd2', 20_000),
        { ...task(wrong.id, 'e1', 1_000), status: 'failed' },
      ],
      reviewTasks: [],
    };
    const ambiguousHistory = '{"type":"CreateAmbiguous"}';
    const histories = new Map([
      [dup.workflowId, ambiguousHistory],
      [lostCb.workflowId, ambiguousHistory],
      [pollAmbiguous.workflowId, ambiguousHistory],
      [pollDup.workflowId, '{}'],
    ]);
    const records: JobRecord[] = [
      succeeded(dup, 'a2'),
      succeeded(lostCb, 'b2'),
      succeeded(pollAmbiguous, 'c2'),
      succeeded(pollDup, 'd2'),
      succeeded(wrong, 'e1'),
      { job: jobs.find((j) => j.kind === 'rejected')!, outcome: 'not finished', startAttempts: 1 },
    ];

    const v = verdictOf(records, snapshot, histories, { minQueryIntervalMs: 500, clientTimeoutMs: 2_000 });

    expect(v.duplicates.map((d) => d.workflowId).sort()).toEqual([dup.workflowId, pollDup.workflowId].sort());
    expect(v.duplicateTasks).toBe(2);
    expect(v.ambiguousResubmits).toEqual({ polling: 1, callbacksLost: 1 });
    expect(v.lost.map((l) => l.workflowId)).toEqual([wrong.workflowId, records[5]!.job.workflowId]);
    expect(v.jobs).toMatchObject({ planned: 6, finished: 4, lost: 2, notFinished: 1, wrongOutcome: 1 });
    expect(v.violations).toEqual([]);
  });

  it('an answer held back past the client time-out was not seen: querying again is no violation, unlike after a seen answer', () => {
    const headers = { 'x-access-token': 't', 'x-track-id': '0123456789abcdef0123456789abcdef' };
    const query = (at: number, fault?: string): RequestLogEntry => ({
      seq: ++seq, at, service: 'review', operation: 'review.query', method: 'GET', path: '/api/task/rv-1', headers, body: undefined,
      status: 200, taskId: 'rv-1', response: { task_id: 'rv-1', status: 'cancelled' }, ...(fault ? { fault } : {}),
    });
    const verdictFor = (requests: RequestLogEntry[]) =>
      verdictOf([], { requests, callbacks: [], videoTasks: [], reviewTasks: [] }, new Map(), { minQueryIntervalMs: 500, clientTimeoutMs: 2_000 });
    expect(verdictFor([query(0, 'hang:3000:commit'), query(4_000)]).violations).toEqual([]);
    expect(verdictFor([query(0, 'hang:1000:commit'), query(4_000)]).violationsByRule).toEqual({ 'review.query-after-cancel': 1 });
    expect(verdictFor([query(0), query(4_000)]).violationsByRule).toEqual({ 'review.query-after-cancel': 1 });
  });

  it('a video task for a job whose review did not pass is a rule violation', () => {
    const rejected = jobs.find((j) => j.kind === 'rejected')!;
    const snapshot: SandboxSnapshot = { requests: [], callbacks: [], videoTasks: [task(rejected.id, 'x1', 1)], reviewTasks: [] };
    const v = verdictOf([{ job: rejected, outcome: 'ReviewRejected', startAttempts: 1 }], snapshot, new Map(), { minQueryIntervalMs: 500, clientTimeoutMs: 2_000 });
    expect(v.violationsByRule).toEqual({ 'video.create-after-review-failed': 1 });
    expect(v.jobs.lost).toBe(0);
  });
});
