// Review submits are never resubmitted blindly (spec: "duplicate submit after a time-out" fails). An
// ambiguous async submit (500, time-out, reset after sending) is resolved by the review callback that
// names the task, confirmed by one query; when none comes the run fails SubmitUnconfirmed, and it
// resubmits only when the job opted in (resubmitOnAmbiguity).
import { describe, expect, it } from 'vitest';
import { auditRequestLog } from 'temporal-review-video-sandbox';
import { progressQuery } from '../../src/job/definitions.js';
import { failureOf } from '../support/failures.js';
import { countOps, fastTiming, imageJob, withStack, type Stack } from '../support/stack.js';

let stack: Stack;
withStack({ httpTimeoutMs: 1_000 }, (s) => (stack = s));

const submits = () => stack.sandbox.requests().filter((r) => r.operation === 'review.submitAsync');
const FOUR_CALLS = { 'review.submitAsync': 1, 'review.query': 1, 'video.create': 1, 'video.get': 1 };

describe('ambiguous review submit, callbacks on', () => {
  it('500 after commit: the task its callback names is adopted; one submit, one review task, still four calls', async () => {
    stack.sandbox.reset();
    stack.sandbox.addFault({
      operation: 'review.submitAsync',
      times: 1,
      fault: { type: 'status', status: 500, commit: true },
    });
    const handle = await stack.start(imageJob());
    const result = await handle.result();
    expect(result.state).toBe('succeeded');
    expect(stack.sandbox.reviewTasks()).toHaveLength(1);
    expect(result.reviewTaskIds).toEqual([stack.sandbox.reviewTasks()[0]!.taskId]);
    expect(countOps(stack.sandbox)).toEqual(FOUR_CALLS);
    expect((await handle.query(progressQuery)).lastError).toContain('review submit ambiguous (1)');
  });

  it('a submit hanging past the client time-out (task committed) is not duplicated', async () => {
    stack.sandbox.reset();
    stack.sandbox.addFault({
      operation: 'review.submitAsync',
      times: 1,
      fault: { type: 'hang', ms: 3_000, commit: true },
    });
    const result = await (await stack.start(imageJob())).result();
    expect(result.state).toBe('succeeded');
    expect(stack.sandbox.reviewTasks()).toHaveLength(1);
    expect(submits()).toHaveLength(1);
  });

  it('a connection reset after the submit was sent is ambiguous too, and resolved the same way', async () => {
    stack.sandbox.reset();
    stack.sandbox.addFault({ operation: 'review.submitAsync', times: 1, fault: { type: 'reset', commit: true } });
    const result = await (await stack.start(imageJob())).result();
    expect(result.state).toBe('succeeded');
    expect(stack.sandbox.reviewTasks()).toHaveLength(1);
    expect(countOps(stack.sandbox)).toEqual(FOUR_CALLS);
  });

  it('500 before commit: no callback can come, so the run waits up to the review time-out and fails SubmitUnconfirmed, never resubmitting', async () => {
    stack.sandbox.reset();
    stack.sandbox.addFault({ operation: 'review.submitAsync', times: 1, fault: { type: 'status', status: 500 } });
    const url = 'https://cdn.example.com/people/unconfirmed.jpg';
    const failure = await failureOf(
      await stack.start(imageJob(url, { timing: { ...fastTiming, reviewTimeoutMs: 2_000 } })),
    );
    expect(failure.type).toBe('SubmitUnconfirmed');
    expect(failure.message).toContain(url);
    expect(failure.message).toContain('resubmitOnAmbiguity');
    expect(failure.details?.[0]).toMatchObject({ stage: 'reviewing', urls: [url], callbackSent: true });
    expect(submits()).toHaveLength(1);
    expect(stack.sandbox.reviewTasks()).toHaveLength(0);
    expect(countOps(stack.sandbox)['video.create'] ?? 0).toBe(0);
  });

  it('a review slower than the grace is still adopted from its callback: the wait is the review time-out', async () => {
    stack.sandbox.reset();
    const url = 'https://cdn.example.com/people/slow-review.jpg';
    stack.sandbox.setReviewTaskOutcome({ url }, 'completed', 4_000);
    stack.sandbox.addFault({
      operation: 'review.submitAsync',
      times: 1,
      fault: { type: 'status', status: 500, commit: true },
    });
    const result = await (
      await stack.start(imageJob(url, { timing: { ...fastTiming, createAmbiguityGraceMs: 500 } }))
    ).result();
    expect(result.state).toBe('succeeded');
    expect(submits()).toHaveLength(1);
    expect(stack.sandbox.reviewTasks()).toHaveLength(1);
  });

  it('opted in (resubmitOnAmbiguity): 500 before commit is resubmitted once, after the grace', async () => {
    stack.sandbox.reset();
    stack.sandbox.addFault({ operation: 'review.submitAsync', times: 1, fault: { type: 'status', status: 500 } });
    const grace = 1_500;
    const result = await (
      await stack.start(
        imageJob(undefined, { resubmitOnAmbiguity: true, timing: { ...fastTiming, createAmbiguityGraceMs: grace } }),
      )
    ).result();
    expect(result.state).toBe('succeeded');
    const sent = submits();
    expect(sent).toHaveLength(2);
    expect(sent[1]!.at - sent[0]!.at).toBeGreaterThanOrEqual(grace);
    expect(stack.sandbox.reviewTasks()).toHaveLength(1);
  });

  it('the query that reads the named task is refused once with a Retry-After: read again after it, then adopted', async () => {
    stack.sandbox.reset();
    stack.sandbox.addFault({
      operation: 'review.submitAsync',
      times: 1,
      fault: { type: 'status', status: 500, commit: true },
    });
    stack.sandbox.addFault({
      operation: 'review.query',
      times: 1,
      fault: { type: 'status', status: 429, retryAfter: '1' },
    });
    const result = await (await stack.start(imageJob())).result();
    expect(result.state).toBe('succeeded');
    expect(submits()).toHaveLength(1);
    expect(stack.sandbox.reviewTasks()).toHaveLength(1);
    expect(
      auditRequestLog(stack.sandbox.requests(), { minQueryIntervalMs: fastTiming.reviewMinQueryIntervalMs }),
    ).toEqual([]);
  });

  it("every attempt of the named task's read refused with Retry-After: the next read still waits for it (issue 36, 1)", async () => {
    stack.sandbox.reset();
    stack.sandbox.addFault({
      operation: 'review.submitAsync',
      times: 1,
      fault: { type: 'status', status: 500, commit: true },
    });
    // As many 429s as a confirming query has attempts (CONFIRM_RETRY), each asking for 2 s.
    stack.sandbox.addFault({
      operation: 'review.query',
      times: 6,
      fault: { type: 'status', status: 429, retryAfter: '2' },
    });
    const result = await (await stack.start(imageJob())).result();
    expect(result.state).toBe('succeeded');
    expect(submits()).toHaveLength(1);
    const queries = stack.sandbox.requests().filter((r) => r.operation === 'review.query');
    for (let i = 1; i < queries.length; i++) {
      if (queries[i - 1]!.status === 429) expect(queries[i]!.at - queries[i - 1]!.at).toBeGreaterThanOrEqual(2_000 - 1);
    }
    expect(
      auditRequestLog(stack.sandbox.requests(), { minQueryIntervalMs: fastTiming.reviewMinQueryIntervalMs }),
    ).toEqual([]);
  });

  it('two batches answered ambiguously: each adopts the task holding its own URLs', async () => {
    stack.sandbox.reset();
    const image = 'https://cdn.example.com/people/carol.jpg';
    const video = 'https://cdn.example.com/people/carol-walk.mp4';
    stack.sandbox.addFault({
      operation: 'review.submitAsync',
      times: 2,
      fault: { type: 'status', status: 500, commit: true },
    });
    const input = imageJob(image);
    input.review = { urls: [image, video] };
    const handle = await stack.start(input);
    const result = await handle.result();
    expect(result.state).toBe('succeeded');
    const tasks = stack.sandbox.reviewTasks();
    expect(tasks).toHaveLength(2);
    expect(submits()).toHaveLength(2);
    expect(new Set(result.reviewTaskIds)).toEqual(new Set(tasks.map((t) => t.taskId)));
    const progress = await handle.query(progressQuery);
    // Each batch's task holds that batch's URL, not the other's.
    const urlsOf = (type: string) =>
      tasks.find((t) => t.taskId === progress.review.tasks.find((e) => e.assetType === type)!.taskId)!.urls;
    expect(urlsOf('Image')).toEqual([image]);
    expect(urlsOf('Video')).toEqual([video]);
    // Both batches looked for their task at once: each named task was read once, never twice in a row.
    expect(
      auditRequestLog(stack.sandbox.requests(), { minQueryIntervalMs: fastTiming.reviewMinQueryIntervalMs }),
    ).toEqual([]);
  });

  it('opted in, ambiguous three times in a row: SubmitUnconfirmed naming the cause, no video task', async () => {
    stack.sandbox.reset();
    stack.sandbox.addFault({ operation: 'review.submitAsync', times: 3, fault: { type: 'status', status: 500 } });
    const failure = await failureOf(
      await stack.start(
        imageJob(undefined, { resubmitOnAmbiguity: true, timing: { ...fastTiming, createAmbiguityGraceMs: 200 } }),
      ),
    );
    expect(failure.type).toBe('SubmitUnconfirmed');
    expect(failure.message).toContain('ambiguous 3 times in a row');
    expect(submits()).toHaveLength(3);
    expect(countOps(stack.sandbox)['video.create'] ?? 0).toBe(0);
  });
});

describe('ambiguous review submit of a job that polls (callbacks: false)', () => {
  it('the callback address is still sent, so the callback naming the task confirms it; the job then polls', async () => {
    stack.sandbox.reset();
    stack.sandbox.addFault({
      operation: 'review.submitAsync',
      times: 1,
      fault: { type: 'status', status: 500, commit: true },
    });
    const result = await (await stack.start(imageJob(undefined, { callbacks: false }))).result();
    expect(result.state).toBe('succeeded');
    expect(submits()).toHaveLength(1);
    expect(stack.sandbox.reviewTasks()).toHaveLength(1);
    expect(result.reviewTaskIds).toEqual([stack.sandbox.reviewTasks()[0]!.taskId]);
  });

  it('500 before commit: SubmitUnconfirmed, one submit, no review task', async () => {
    stack.sandbox.reset();
    stack.sandbox.addFault({ operation: 'review.submitAsync', times: 1, fault: { type: 'status', status: 500 } });
    const failure = await failureOf(
      await stack.start(imageJob(undefined, { callbacks: false, timing: { ...fastTiming, reviewTimeoutMs: 1_500 } })),
    );
    expect(failure.type).toBe('SubmitUnconfirmed');
    expect(submits()).toHaveLength(1);
    expect(stack.sandbox.reviewTasks()).toHaveLength(0);
  });
});
