// Create is never retried blindly: 500 after commit, 500 before commit, and a hang past the client
// time-out each end with exactly one video task in the sandbox.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countOps, fastTiming, imageJob, startStack, workflowBundle, type Stack } from '../support/stack.js';
import { assertNoSecretsInHistories, replayHistories } from '../support/temporal.js';

let stack: Stack;
beforeAll(async () => {
  await workflowBundle();
  stack = await startStack({ httpTimeoutMs: 1_000 });
});
afterAll(async () => {
  expect(await replayHistories(stack.handles, await workflowBundle())).toBe(stack.handles.length);
  await assertNoSecretsInHistories(stack.handles, [stack.sandbox.apiKey, stack.sandbox.accessToken, stack.secret]);
  await stack.stop();
});

describe('idempotent create', () => {
  it('500 after commit, callback arriving: the task is adopted, not created twice', async () => {
    stack.sandbox.reset();
    stack.sandbox.addFault({ operation: 'video.create', times: 1, fault: { type: 'status', status: 500, commit: true } });
    const result = await (await stack.start(imageJob())).result();
    expect(stack.sandbox.videoTasks()).toHaveLength(1);
    expect(result.taskId).toBe(stack.sandbox.videoTasks()[0]!.id);
    expect(countOps(stack.sandbox)['video.create']).toBe(1);
  });

  it('500 before commit: resubmitted once after the grace, one task', async () => {
    stack.sandbox.reset();
    stack.sandbox.addFault({ operation: 'video.create', times: 1, fault: { type: 'status', status: 500, commit: false } });
    const grace = 1_500;
    const result = await (await stack.start(imageJob(undefined, { timing: { ...fastTiming, createAmbiguityGraceMs: grace } }))).result();
    const creates = stack.sandbox.requests().filter((r) => r.operation === 'video.create');
    expect(creates).toHaveLength(2);
    expect(creates[1]!.at - creates[0]!.at).toBeGreaterThanOrEqual(grace);
    expect(stack.sandbox.videoTasks()).toHaveLength(1);
    expect(result.taskId).toBe(stack.sandbox.videoTasks()[0]!.id);
  });

  it('a create hanging past the client time-out (task committed) is not duplicated', async () => {
    stack.sandbox.reset();
    stack.sandbox.addFault({ operation: 'video.create', times: 1, fault: { type: 'hang', ms: 3_000, commit: true } });
    const result = await (await stack.start(imageJob())).result();
    expect(stack.sandbox.videoTasks()).toHaveLength(1);
    expect(result.taskId).toBe(stack.sandbox.videoTasks()[0]!.id);
    expect(countOps(stack.sandbox)['video.create']).toBe(1);
  });

  it('a create hanging past the client time-out (nothing committed) is resubmitted once, one task', async () => {
    stack.sandbox.reset();
    stack.sandbox.addFault({ operation: 'video.create', times: 1, fault: { type: 'hang', ms: 3_000, commit: false } });
    const result = await (await stack.start(imageJob(undefined, { timing: { ...fastTiming, createAmbiguityGraceMs: 1_500 } }))).result();
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
    stack.sandbox.addFault({ operation: 'video.create', times: 1, fault: { type: 'status', status: 503, retryAfter: '1' } });
    const second = await (await stack.start(imageJob())).result();
    const creates = stack.sandbox.requests().filter((r) => r.operation === 'video.create');
    expect(creates).toHaveLength(2);
    expect(creates[1]!.at - creates[0]!.at).toBeGreaterThanOrEqual(1_000 - 1);
    expect(stack.sandbox.videoTasks()).toHaveLength(1);
    expect(second.taskId).toBe(stack.sandbox.videoTasks()[0]!.id);
  });
});
