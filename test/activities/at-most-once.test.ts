// The heartbeat recovery of the create-at-most-once and polling protocols, in MockActivityEnvironment
// against the sandbox over HTTP: what a retried attempt does with what the previous one recorded.
import { MockActivityEnvironment } from '@temporalio/testing';
import { activityFailure } from '../support/failures.js';
import { describe, expect, it } from 'vitest';
import { createActivities, type VideoTaskSummary } from '../../src/activities/index.js';
import type { Activities, VideoCreateInput } from '../../src/contract/index.js';
import { withSandbox } from '../support/sandbox.js';

const services = withSandbox({ videoDurationMs: 60_000, timeoutMs: 1_000 });
// Built on use: the clients exist once the sandbox has started.
const acts = () => createActivities(services);
/** The create as these tests call it: no quota is configured, so it always answers with a task id. */
const createOf = (a: Activities) => a.rtgCreateVideoTask as unknown as <R>(input: VideoCreateInput) => Promise<R>;
const body = { model: 'video-model-1', content: [{ type: 'text' as const, text: 'a kite' }] };

const creates = () => services.sandbox.requests().filter((r) => r.operation === 'video.create');

function attempt(attemptNo: number, heartbeatDetails?: unknown) {
  const env = new MockActivityEnvironment({
    attempt: attemptNo,
    ...(heartbeatDetails !== undefined ? { heartbeatDetails } : {}),
  });
  const beats: unknown[] = [];
  env.on('heartbeat', (d: unknown) => beats.push(d));
  return { env, beats };
}

describe('create at most once', () => {
  it('records the task id the moment it arrives; a retried attempt returns it without sending again', async () => {
    const first = attempt(1);
    const created = (await first.env.run(createOf(acts()), { workflowId: 'wf-1', body })) as {
      taskId: string;
      callbackSent: boolean;
    };
    expect(created).toEqual({ taskId: expect.any(String), callbackSent: false });
    expect(first.beats).toEqual([{ taskId: created.taskId }]);
    const retry = attempt(2, first.beats[0]);
    expect(await retry.env.run(createOf(acts()), { workflowId: 'wf-1', body })).toEqual({
      taskId: created.taskId,
      callbackSent: false,
    });
    expect(creates()).toHaveLength(1);
  });

  it('with a callback address sent and no resubmitting, the id is not heartbeated: a retry is CreateAmbiguous and the callback names the task', async () => {
    const withCallbacks = () =>
      createActivities({
        ...services,
        callbacks: { publicUrl: 'https://callbacks.example.invalid/', secret: 's'.repeat(32) },
      });
    const first = attempt(1);
    const input = { workflowId: 'wf-cb', body, resubmitOnAmbiguity: false };
    const created = (await first.env.run(createOf(withCallbacks()), input)) as { callbackSent: boolean };
    expect(created.callbackSent).toBe(true);
    // One billable action less per create; the heartbeat adds nothing the callback does not carry.
    expect(first.beats).toEqual([]);
    const f = await activityFailure(attempt(2).env.run(createOf(withCallbacks()), input));
    expect(f).toMatchObject({ type: 'CreateAmbiguous', nonRetryable: true });
    expect(f.details?.[0]).toEqual({ callbackSent: true });
    expect(creates()).toHaveLength(1);
    const sent = services.sandbox.videoTasks()[0]?.body as { callback_url?: string } | undefined;
    expect(sent?.callback_url).toContain('/callbacks/video/wf-cb');
    // A job that may resubmit keeps the record (its grace window may end before the callback), and so does
    // a run scheduled by 0.2.0 (no resubmitOnAmbiguity in the input).
    for (const resubmitOnAmbiguity of [true, undefined]) {
      const again = attempt(1);
      await again.env.run(createOf(withCallbacks()), { workflowId: 'wf-cb2', body, resubmitOnAmbiguity });
      expect(again.beats).toEqual([{ taskId: expect.any(String) }]);
    }
  });

  it('a retried attempt whose predecessor left nothing (worker lost mid-call) is CreateAmbiguous, sends nothing', async () => {
    const f = await activityFailure(attempt(2).env.run(createOf(acts()), { workflowId: 'wf-2', body }));
    expect(f).toMatchObject({ type: 'CreateAmbiguous', nonRetryable: true });
    expect(f.details?.[0]).toEqual({ callbackSent: false });
    expect(creates()).toHaveLength(0);
  });

  it('a 503 proves nothing was created: recorded, and the next attempt sends again', async () => {
    services.sandbox.addFault({
      operation: 'video.create',
      times: 1,
      fault: { type: 'status', status: 503, retryAfter: '1' },
    });
    const first = attempt(1);
    const f = await activityFailure(first.env.run(createOf(acts()), { workflowId: 'wf-3', body }));
    expect(f).toMatchObject({ type: 'TransientServiceError', nonRetryable: false, nextRetryDelay: 1_000 });
    expect(first.beats).toEqual([{ notCreatedBy: 1 }]);
    const retry = attempt(2, first.beats[0]);
    expect(await retry.env.run(createOf(acts()), { workflowId: 'wf-3', body })).toMatchObject({
      taskId: expect.any(String),
    });
    expect(creates()).toHaveLength(2);
  });

  it('a marker of an older attempt proves nothing about the attempt just before: CreateAmbiguous, nothing sent', async () => {
    // Attempt 1 got a 503; attempt 2 sent and vanished (its answer never recorded); attempt 3 must not send.
    const f = await activityFailure(
      attempt(3, { notCreatedBy: 1 }).env.run(createOf(acts()), { workflowId: 'wf-6', body }),
    );
    expect(f).toMatchObject({ type: 'CreateAmbiguous', nonRetryable: true });
    expect(creates()).toHaveLength(0);
  });

  it('a 500 is CreateAmbiguous at once, with the evidence and whether a callback address went out', async () => {
    services.sandbox.addFault({
      operation: 'video.create',
      times: 1,
      fault: { type: 'status', status: 500, commit: true },
    });
    const f = await activityFailure(attempt(1).env.run(createOf(acts()), { workflowId: 'wf-4', body }));
    expect(f).toMatchObject({ type: 'CreateAmbiguous', nonRetryable: true });
    expect(f.details?.[0]).toMatchObject({ status: 500, ambiguous: true, callbackSent: false });
  });
});

describe('polling', () => {
  it('network failures back off 1 s, 2 s, 4 s, 4 s, counted in the heartbeat across attempts; a success resets the count', async () => {
    const { taskId } = (await attempt(1).env.run(createOf(acts()), { workflowId: 'wf-5', body })) as {
      taskId: string;
    };
    services.sandbox.addFault({ operation: 'video.get', times: 4, fault: { type: 'reset' } });
    let details: unknown;
    const delays: Array<number | undefined> = [];
    for (let n = 1; n <= 4; n++) {
      const a = attempt(n, details);
      const f = await activityFailure(
        a.env.run(acts().rtgQueryVideoTask, { taskId, minIntervalMs: 0, untilFinal: true }),
      );
      delays.push(f.nextRetryDelay as number | undefined);
      details = a.beats.at(-1);
    }
    expect(delays).toEqual([1_000, 2_000, 4_000, 4_000]);
    const ok = attempt(5, details);
    const notFinal = await activityFailure(
      ok.env.run(acts().rtgQueryVideoTask, { taskId, minIntervalMs: 0, cadenceMs: 300, untilFinal: true }),
    );
    expect(notFinal).toMatchObject({ type: 'NotFinalYet', nextRetryDelay: 300 });
    expect(ok.beats).toEqual([{ networkFailures: 0, reportedBy: 5 }]);
    const once = (await attempt(1).env.run(acts().rtgQueryVideoTask, {
      taskId,
      minIntervalMs: 0,
      untilFinal: false,
    })) as VideoTaskSummary;
    expect(once.queries).toBe(1);
  });
});
