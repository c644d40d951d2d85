// The review service's quota (issue 26): REVIEW_MAX_TASKS_IN_FLIGHT=2 on both workers (this process and a
// child process), against a sandbox whose review capacity is 2, then 1 (a quota configured above the real
// one). Each review batch is one task and holds one slot from its submit until it is final. Counts only.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { defaultQuotaKey } from '../../src/config/admission.js';
import { admissionGateId, gateStateQuery, type GateStateView } from '../../src/contract/index.js';
import { progressQuery } from '../../src/job/definitions.js';
import { failureOf } from '../support/failures.js';
import { runCli } from '../support/run-cli.js';
import { fastTiming, imageJob, withStack, type Stack } from '../support/stack.js';
import { testClient } from '../support/temporal.js';
import { until } from '../support/until.js';

let stack: Stack;
withStack({ workerProcesses: 1, admissionEnv: { REVIEW_MAX_TASKS_IN_FLIGHT: '2' } }, (s) => (stack = s));

const reviewKey = () => defaultQuotaKey('review', stack.sandbox.reviewBaseUrl);

/** Jobs with one image each, whose review takes `reviewMs` in the sandbox. */
function reviewJobs(count: number, reviewMs: number, mode: 'async' | 'sync' = 'async') {
  const run = randomUUID().slice(0, 8);
  return Array.from({ length: count }, (_, i) => {
    const url = `https://cdn.example.com/people/quota-${run}-${i}.jpg`;
    stack.sandbox.setReviewTaskOutcome({ url }, 'completed', reviewMs);
    const input = imageJob(url);
    input.review = { mode };
    return input;
  });
}

/** Every activity attempt of the jobs: a quota refusal is an answer, never a retried attempt. */
async function attemptsOf(workflowIds: string[]): Promise<number[]> {
  const client = await testClient();
  const attempts: number[] = [];
  for (const id of workflowIds) {
    const events = (await client.workflow.getHandle(id).fetchHistory()).events ?? [];
    for (const e of events) {
      const attempt = e.activityTaskStartedEventAttributes?.attempt;
      if (attempt !== undefined && attempt !== null) attempts.push(attempt);
    }
  }
  return attempts;
}

describe('REVIEW_MAX_TASKS_IN_FLIGHT=2 on two workers', () => {
  it('12 jobs at once all succeed, never more than 2 review tasks at the service, no 429', async () => {
    stack.sandbox.reset();
    stack.sandbox.setQuotas({ reviewMaxTasksInFlight: 2 });
    const handles = await Promise.all(reviewJobs(12, 600).map((input) => stack.start(input)));
    const results = await Promise.all(handles.map((h) => h.result()));
    expect(results.map((r) => r.state)).toEqual(Array(12).fill('succeeded'));

    const stats = stack.sandbox.quotaStats().review;
    expect(stats).toMatchObject({ peakInFlight: 2, admitted: 12, refused: 0 });
    // Every submit went through the review gate: the progress names its key and when each was admitted.
    for (const h of handles) {
      const admission = (await h.query(progressQuery)).admission;
      expect(admission).toMatchObject({ quotaKey: reviewKey(), refusals: 0 });
      expect(admission?.admittedAt).toBeGreaterThanOrEqual(admission!.waitingSince);
    }
    const client = await testClient();
    const gate = client.workflow.getHandle(admissionGateId(reviewKey()));
    expect(await gate.query(gateStateQuery)).toMatchObject({ capacity: 2, inFlight: 0, waiting: 0 });
    // What it cost: per job, the submit attempt that only asked and the one that submitted, and the grant
    // if it waited (none when admitted at once). In the gate, each one's ask (an update) and release.
    for (const h of handles) {
      const events = (await client.workflow.getHandle(h.workflowId).fetchHistory()).events ?? [];
      const named = (name: string) =>
        events.filter(
          (e) =>
            e.activityTaskScheduledEventAttributes?.activityType?.name === name ||
            e.workflowExecutionSignaledEventAttributes?.signalName === name,
        ).length;
      const cost = [named('rtgSubmitReview'), named('slotGranted')];
      expect(cost[0]).toBe(2);
      expect(cost[1]).toBeLessThanOrEqual(1);
    }
    const gateEvents = (await gate.fetchHistory()).events ?? [];
    // Each ask is an update, or a signal where the update was throttled or slow (a burst).
    const asks = gateEvents.filter(
      (e) =>
        e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name === 'acquireSlotNow' ||
        e.workflowExecutionSignaledEventAttributes?.signalName === 'acquireSlot',
    );
    expect(asks.length).toBeGreaterThanOrEqual(12);
    const releases = gateEvents.filter((e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'releaseSlot');
    expect(releases).toHaveLength(12);
  });

  it('sync reviews hold their slot for the whole blocking call', async () => {
    stack.sandbox.reset();
    stack.sandbox.setQuotas({ reviewMaxTasksInFlight: 2 });
    const handles = await Promise.all(reviewJobs(6, 500, 'sync').map((input) => stack.start(input)));
    const results = await Promise.all(handles.map((h) => h.result()));
    expect(results.map((r) => r.state)).toEqual(Array(6).fill('succeeded'));
    expect(stack.sandbox.quotaStats().review).toMatchObject({ peakInFlight: 2, admitted: 6, refused: 0 });
    expect(stack.sandbox.requests().filter((r) => r.operation === 'review.submitSync')).toHaveLength(6);
  });

  it('a job waits in waiting_for_quota, and its review time-out starts only when it is admitted', async () => {
    stack.sandbox.reset();
    stack.sandbox.setQuotas({ reviewMaxTasksInFlight: 2 });
    // Two reviews that would take 10 min hold both slots once submitted, until the test cancels them at the
    // service (a fixed length was always too short for two CLI runs on some busy machine); the third job
    // may review for 3 s only.
    const holders = await Promise.all(reviewJobs(2, 600_000).map((input) => stack.start(input)));
    const holderTasks: string[] = [];
    for (const h of holders) {
      await until(async () => Boolean((await h.query(progressQuery)).review.tasks[0]?.taskId), 'the holders to submit');
      holderTasks.push((await h.query(progressQuery)).review.tasks[0]!.taskId);
    }
    const [late] = reviewJobs(1, 300);
    late!.timing = { ...fastTiming, reviewTimeoutMs: 3_000 };
    const waiter = await stack.start(late!);
    await until(async () => (await waiter.query(progressQuery)).stage === 'waiting_for_quota', 'the job to wait');
    expect((await waiter.query(progressQuery)).admission?.quotaKey).toBe(reviewKey());
    // The CLI shows the review gate beside any other, and the waiting job's place in its line.
    const quota = await runCli(['quota', '--json'], { taskQueue: stack.taskQueue });
    const gates = (JSON.parse(quota.stdout) as { gates: GateStateView[] }).gates;
    expect(gates.find((g) => g.key === reviewKey())).toMatchObject({ capacity: 2, inFlight: 2, waiting: 1 });
    const status = await runCli(['status', waiter.workflowId, '--json'], { taskQueue: stack.taskQueue });
    expect((JSON.parse(status.stdout) as { quotaPosition?: number }).quotaPosition).toBe(0);
    // Longer than its review time-out in the line, then the holders' reviews end (cancelled at the service).
    const { waitingSince } = (await waiter.query(progressQuery)).admission!;
    await new Promise((r) => setTimeout(r, Math.max(0, waitingSince + 3_500 - Date.now())));
    for (const taskId of holderTasks) stack.sandbox.cancelReviewTask(taskId);
    const result = await waiter.result();
    expect(result.state).toBe('succeeded');
    const admission = (await waiter.query(progressQuery)).admission!;
    // It waited longer than its review time-out, and did not fail ReviewTimedOut.
    expect(admission.admittedAt! - admission.waitingSince).toBeGreaterThan(3_000);
    for (const h of holders) expect((await failureOf(h)).type).toBe('ReviewCancelled');
    expect(stack.sandbox.quotaStats().review).toMatchObject({ peakInFlight: 2, refused: 0 });
  });

  it('against a service that allows only 1: 429s are back-pressure, every job succeeds, no attempt retried', async () => {
    stack.sandbox.reset();
    stack.sandbox.setQuotas({ reviewMaxTasksInFlight: 1 });
    // Reviews of 2 s: the second slot's submit comes while the first task is in flight, however loaded the
    // machine (400 ms ones ended before it on a busy run, and nothing was refused).
    const handles = await Promise.all(reviewJobs(6, 2_000).map((input) => stack.start(input)));
    const results = await Promise.all(handles.map((h) => h.result()));
    expect(results.map((r) => r.state)).toEqual(Array(6).fill('succeeded'));

    const stats = stack.sandbox.quotaStats().review;
    expect(stats.peakInFlight).toBe(1);
    expect(stats.admitted).toBe(6);
    expect(stats.refused).toBeGreaterThan(0); // the configured 2 was tried
    let refusals = 0;
    for (const h of handles) refusals += (await h.query(progressQuery)).admission?.refusals ?? 0;
    expect(refusals).toBe(stats.refused);
    expect((await attemptsOf(handles.map((h) => h.workflowId))).every((a) => a === 1)).toBe(true);
  });
});
