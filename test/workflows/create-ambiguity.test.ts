// Create is never retried blindly: 500 after commit, 500 before commit, and a hang past the client
// time-out each end with at most one video task in the sandbox; a second create only when the job
// opted in (resubmitOnAmbiguity).
import { describe, expect, it } from 'vitest';
import { progressQuery } from '../../src/job/definitions.js';
import { failureOf } from '../support/failures.js';
import { countOps, fastTiming, imageJob, withStack, type Stack } from '../support/stack.js';

let stack: Stack;
withStack({ httpTimeoutMs: 1_000 }, (s) => (stack = s));

describe('idempotent create', () => {
  it('500 after commit, callback arriving: the task is adopted, not created twice', async () => {
    stack.sandbox.reset();
    stack.sandbox.addFault({
      operation: 'video.create',
      times: 1,
      fault: { type: 'status', status: 500, commit: true },
    });
    const result = await (await stack.start(imageJob())).result();
    expect(stack.sandbox.videoTasks()).toHaveLength(1);
    expect(result.taskId).toBe(stack.sandbox.videoTasks()[0]!.id);
    expect(countOps(stack.sandbox)['video.create']).toBe(1);
  });

  it('500 before commit: no callback can come, so the run waits up to the generation time-out and fails SubmitUnconfirmed', async () => {
    stack.sandbox.reset();
    stack.sandbox.addFault({
      operation: 'video.create',
      times: 1,
      fault: { type: 'status', status: 500, commit: false },
    });
    const failure = await failureOf(
      await stack.start(imageJob(undefined, { timing: { ...fastTiming, generationTimeoutMs: 2_000 } })),
    );
    expect(failure.type).toBe('SubmitUnconfirmed');
    expect(failure.message).toContain('resubmitOnAmbiguity');
    expect(failure.details?.[0]).toMatchObject({ stage: 'creating', callbackSent: true });
    expect(countOps(stack.sandbox)['video.create']).toBe(1);
    expect(stack.sandbox.videoTasks()).toHaveLength(0);
  });

  it('opted in (resubmitOnAmbiguity): 500 before commit is resubmitted once after the grace, one task', async () => {
    stack.sandbox.reset();
    stack.sandbox.addFault({
      operation: 'video.create',
      times: 1,
      fault: { type: 'status', status: 500, commit: false },
    });
    const grace = 1_500;
    const result = await (
      await stack.start(
        imageJob(undefined, { resubmitOnAmbiguity: true, timing: { ...fastTiming, createAmbiguityGraceMs: grace } }),
      )
    ).result();
    const creates = stack.sandbox.requests().filter((r) => r.operation === 'video.create');
    expect(creates).toHaveLength(2);
    expect(creates[1]!.at - creates[0]!.at).toBeGreaterThanOrEqual(grace);
    expect(stack.sandbox.videoTasks()).toHaveLength(1);
    expect(result.taskId).toBe(stack.sandbox.videoTasks()[0]!.id);
  });

  it('a polling job (callbacks: false) still sends the callback address: the callback naming the task confirms an ambiguous create', async () => {
    stack.sandbox.reset();
    stack.sandbox.addFault({
      operation: 'video.create',
      times: 1,
      fault: { type: 'status', status: 500, commit: true },
    });
    const result = await (await stack.start(imageJob(undefined, { callbacks: false }))).result();
    expect(stack.sandbox.videoTasks()).toHaveLength(1);
    expect(result.taskId).toBe(stack.sandbox.videoTasks()[0]!.id);
    expect(countOps(stack.sandbox)['video.create']).toBe(1);
  });

  it('a create hanging past the client time-out (task committed) is not duplicated', async () => {
    stack.sandbox.reset();
    stack.sandbox.addFault({ operation: 'video.create', times: 1, fault: { type: 'hang', ms: 3_000, commit: true } });
    const result = await (await stack.start(imageJob())).result();
    expect(stack.sandbox.videoTasks()).toHaveLength(1);
    expect(result.taskId).toBe(stack.sandbox.videoTasks()[0]!.id);
    expect(countOps(stack.sandbox)['video.create']).toBe(1);
  });

  it('opted in: a create hanging past the client time-out (nothing committed) is resubmitted once, one task', async () => {
    stack.sandbox.reset();
    stack.sandbox.addFault({ operation: 'video.create', times: 1, fault: { type: 'hang', ms: 3_000, commit: false } });
    const result = await (
      await stack.start(
        imageJob(undefined, { resubmitOnAmbiguity: true, timing: { ...fastTiming, createAmbiguityGraceMs: 1_500 } }),
      )
    ).result();
    expect(stack.sandbox.videoTasks()).toHaveLength(1);
    expect(result.taskId).toBe(stack.sandbox.videoTasks()[0]!.id);
    expect(countOps(stack.sandbox)['video.create']).toBe(2);
  });

  it('a connection reset after the request was sent is ambiguous too; 503 is retried at once (nothing was created)', async () => {
    stack.sandbox.reset();
    stack.sandbox.addFault({ operation: 'video.create', times: 1, fault: { type: 'reset', commit: true } });
    const first = await (await stack.start(imageJob())).result();
    expect(stack.sandbox.videoTasks()).toHaveLength(1);
    expect(first.taskId).toBe(stack.sandbox.videoTasks()[0]!.id);

    stack.sandbox.reset();
    stack.sandbox.addFault({
      operation: 'video.create',
      times: 1,
      fault: { type: 'status', status: 503, retryAfter: '1' },
    });
    const second = await (await stack.start(imageJob())).result();
    const creates = stack.sandbox.requests().filter((r) => r.operation === 'video.create');
    expect(creates).toHaveLength(2);
    expect(creates[1]!.at - creates[0]!.at).toBeGreaterThanOrEqual(1_000 - 1);
    expect(stack.sandbox.videoTasks()).toHaveLength(1);
    expect(second.taskId).toBe(stack.sandbox.videoTasks()[0]!.id);
  });
});

describe('orphans of an ambiguous create', () => {
  it('opted in: a task revealed by a late callback after the resubmit is cancelled at once; the run keeps its own task', async () => {
    stack.sandbox.reset();
    stack.sandbox.setVideoOutcome({ promptIncludes: 'late callback' }, 'succeeded', 8_000);
    // The first create commits but answers 500, and its callbacks arrive only after the grace.
    stack.sandbox.addFault({
      operation: 'video.create',
      times: 1,
      fault: { type: 'status', status: 500, commit: true },
    });
    stack.sandbox.setCallbackFault({ kind: 'video', mode: 'delay', delayMs: 2_500, times: 1 });
    const input = imageJob(undefined, {
      resubmitOnAmbiguity: true,
      timing: { ...fastTiming, createAmbiguityGraceMs: 1_000 },
    });
    (input.task.content as Array<{ text?: string }>)[0]!.text = 'a late callback story';
    const handle = await stack.start(input);
    const result = await handle.result();
    const tasks = stack.sandbox.videoTasks();
    expect(tasks).toHaveLength(2);
    const orphan = tasks.find((t) => t.id !== result.taskId)!;
    expect(orphan.status).toBe('cancelled');
    expect(
      stack.sandbox
        .requests()
        .filter((r) => r.operation === 'video.cancel')
        .map((r) => r.path),
    ).toEqual([expect.stringContaining(orphan.id)]);
    expect((await handle.query(progressQuery)).orphanTasksCancelled).toEqual([orphan.id]);
  });
});
