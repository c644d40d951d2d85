// The provider's quota on tasks in flight, enforced across two workers (issue 26): the worker in this
// process and our worker in a child process, both configured VIDEO_MAX_TASKS_IN_FLIGHT=2, against a sandbox
// whose real capacity is 2 too. Counts and order only: tasks in flight at the provider, 429s, which job was
// created when, what the histories cost.
import { randomUUID } from 'node:crypto';
import { WorkflowFailedError } from '@temporalio/client';
import proto from '@temporalio/proto';
import { describe, expect, it } from 'vitest';
import { defaultVideoQuotaKey } from '../../src/config/admission.js';
import { admissionGateId, gateStateQuery, type GateStateView } from '../../src/contract/index.js';
import { startReviewThenGenerate } from '../../src/client/start.js';
import { progressQuery } from '../../src/job/definitions.js';
import type { ReviewThenGenerateInput } from '../../src/job/input.js';
import { failureOf } from '../support/failures.js';
import { runCli } from '../support/run-cli.js';
import { fastTiming, withStack, type Stack } from '../support/stack.js';
import { testClient } from '../support/temporal.js';
import { until } from '../support/until.js';

const { TaskQueueType } = proto.temporal.api.enums.v1;
let stack: Stack;
withStack(
  {
    workerProcesses: 1,
    admissionEnv: {
      VIDEO_MAX_TASKS_IN_FLIGHT: '2',
      ADMISSION_LEASE_MS: '5000',
      ADMISSION_TENANT_WEIGHTS: 'tenant-a:2',
      VIDEO_DAILY_TASKS_BY_TENANT: 'budget-t:1',
    },
  },
  (s) => (stack = s),
);

/** A job with no media to review: only its video task, which takes `durationMs` in the sandbox. */
function textJob(prompt: string, durationMs: number, extra: Partial<ReviewThenGenerateInput> = {}) {
  stack.sandbox.setVideoOutcome({ promptIncludes: prompt }, 'succeeded', durationMs);
  const input: ReviewThenGenerateInput = {
    task: { model: 'video-model-1', content: [{ type: 'text', text: prompt }], ratio: '16:9', duration: 5 },
    callbacks: true,
    timing: fastTiming,
    ...extra,
  };
  return input;
}

const gateId = () => admissionGateId(defaultVideoQuotaKey(stack.sandbox.videoBaseUrl));
async function gateView() {
  return (await testClient()).workflow.getHandle(gateId()).query(gateStateQuery);
}
async function stageOf(h: { query: (q: typeof progressQuery) => Promise<{ stage: string }> }) {
  return (await h.query(progressQuery)).stage;
}
/** Two jobs whose tasks run for a minute, once both generate: every slot of the quota is held. */
/** Two jobs whose tasks run until the test ends them (a fixed length would race a loaded machine). */
async function holdBothSlots(run: string) {
  const hour = 3_600_000;
  const hold = (name: string) =>
    textJob(`hold ${run} ${name}`, hour, { timing: { ...fastTiming, generationTimeoutMs: hour } });
  const holders = [await stack.start(hold('a')), await stack.start(hold('b'))];
  for (const h of holders) await until(async () => (await stageOf(h)) === 'generating', 'the holders to generate');
  return holders;
}
const createdOrder = () =>
  stack.sandbox
    .videoTasks()
    .sort((a, b) => a.createdAt - b.createdAt)
    .map((t) => JSON.stringify(t.body));

describe('VIDEO_MAX_TASKS_IN_FLIGHT=2 on two workers', () => {
  it('24 jobs at once all succeed; the provider never has more than 2 in flight and answers no 429', async () => {
    stack.sandbox.reset();
    stack.sandbox.setQuotas({ videoMaxTasksInFlight: 2 });
    const client = await testClient();
    const gateEventsBefore = Number(
      (
        await client.workflow
          .getHandle(gateId())
          .describe()
          .catch(() => undefined)
      )?.historyLength ?? 0,
    );
    const run = randomUUID().slice(0, 8);
    const handles = await Promise.all(
      Array.from({ length: 24 }, (_, i) => stack.start(textJob(`quota-24 ${run} job ${i}`, 1_000))),
    );
    const results = await Promise.all(handles.map((h) => h.result()));
    expect(results.map((r) => r.state)).toEqual(Array(24).fill('succeeded'));
    const stats = stack.sandbox.quotaStats().video;
    expect(stats.peakInFlight).toBe(2);
    expect(stats).toMatchObject({ admitted: 24, refused: 0 });
    expect(stack.sandbox.videoTasks()).toHaveLength(24);

    // Both workers ran creates of these jobs, and every slot was given back.
    const identities = new Set<string>();
    let admissionActions = 0;
    let atOnce = 0;
    for (const h of handles) {
      const history = await client.workflow.getHandle(h.workflowId).fetchHistory();
      const events = history.events ?? [];
      for (const e of events)
        if (e.activityTaskStartedEventAttributes?.identity)
          identities.add(e.activityTaskStartedEventAttributes.identity);
      // In the run: each job made a create attempt that only asked, then the one that created; a job
      // admitted at once got no grant signal, one that waited got one.
      const grants = events.filter((e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'slotGranted');
      const creates = events.filter(
        (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'rtgCreateVideoTask',
      );
      expect(creates).toHaveLength(2);
      expect(grants.length).toBeLessThanOrEqual(1);
      if (grants.length === 0) atOnce++;
      admissionActions += grants.length + creates.length - 1;
    }
    expect(identities.size).toBeGreaterThanOrEqual(2);
    expect((await gateView()).inFlight).toBe(0);
    // In the gate: each job's ask (an update, or a signal where the update was throttled or slow: a burst)
    // and its release (a signal).
    const gateEvents = ((await client.workflow.getHandle(gateId()).fetchHistory()).events ?? []).filter(
      (e) => Number(e.eventId) > gateEventsBefore,
    );
    const signalled = (name: string) =>
      gateEvents.filter((e) => e.workflowExecutionSignaledEventAttributes?.signalName === name).length;
    const updates = gateEvents.filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes).length;
    expect(signalled('releaseSlot')).toBe(24);
    expect(updates).toBeLessThanOrEqual(24);
    expect(updates + signalled('acquireSlot')).toBeGreaterThanOrEqual(24);
    admissionActions += updates + signalled('acquireSlot') + signalled('releaseSlot');
    // Admitted at once: the ask, the attempt that asked and the release, 3 actions. Waiting: also the
    // grant, 4 (5 with the search attributes on, for the stage waiting_for_quota). An ask that fell back
    // to a signal after its update reached the gate costs one more.
    const fellBack = updates + signalled('acquireSlot') - 24;
    expect(admissionActions).toBe(3 * atOnce + 4 * (24 - atOnce) + fellBack);
  });

  it('grants the next slot to a priority-1 job before priority-3 jobs that waited longer', async () => {
    stack.sandbox.reset();
    const run = randomUUID().slice(0, 8);
    const holders = await holdBothSlots(run);
    const waiting = [];
    for (const [i, priority] of [3, 3, 3, 1].entries()) {
      const h = await stack.start(textJob(`prio ${run} ${i} p${priority}`, 500, { priority }));
      await until(async () => (await stageOf(h)) === 'waiting_for_quota', `job ${i} to wait for quota`);
      waiting.push(h);
    }
    expect((await gateView()).waiting).toBe(4);
    // What an operator sees: the quota's state, and each waiting job's place in line (priority 1 first).
    const key = defaultVideoQuotaKey(stack.sandbox.videoBaseUrl);
    const quota = await runCli(['quota', '--json'], { taskQueue: stack.taskQueue });
    expect(quota.code).toBe(0);
    const gate = (JSON.parse(quota.stdout) as { gates: GateStateView[] }).gates.find((g) => g.key === key);
    expect(gate).toMatchObject({
      capacity: 2,
      inFlight: 2,
      waiting: 4,
      waitingBy: { '1': { default: 1 }, '3': { default: 3 } },
    });
    const positions = [];
    for (const h of [waiting[3]!, waiting[0]!]) {
      const st = await runCli(['status', h.workflowId, '--json'], { taskQueue: stack.taskQueue });
      positions.push((JSON.parse(st.stdout) as { quotaPosition?: number }).quotaPosition);
    }
    expect(positions).toEqual([0, 1]);
    const text = await runCli(['status', waiting[0]!.workflowId], { taskQueue: stack.taskQueue });
    expect(text.stdout).toContain(`waiting for a slot of ${key}: 1 job(s) ahead`);
    // One slot freed: it goes to the priority-1 job.
    await holders[0]!.cancel();
    const queuedCreates = () => createdOrder().filter((b) => b.includes(`prio ${run}`));
    await until(() => queuedCreates().length > 0, 'a waiting job to be created');
    expect(queuedCreates()).toHaveLength(1);
    expect(queuedCreates()[0]).toContain('p1');
    await holders[1]!.cancel();
    await Promise.all(waiting.map((h) => h.result()));
    expect(queuedCreates()).toHaveLength(4);
    // The cancelled holders gave their slots back after their cancel call.
    expect(stack.sandbox.videoTasks().filter((t) => t.status === 'cancelled')).toHaveLength(2);
    expect((await gateView()).inFlight).toBe(0);
  });

  it("tenant A's 40 waiting jobs do not starve tenant B's 4: B takes every other grant from its arrival", async () => {
    stack.sandbox.reset();
    const run = randomUUID().slice(0, 8);
    const a = await Promise.all(
      Array.from({ length: 40 }, (_, i) => stack.start(textJob(`tenants ${run} A ${i}`, 300, { fairnessKey: 'A' }))),
    );
    await until(async () => ((await gateView().catch(() => undefined))?.waiting ?? 0) >= 30, "A's jobs to queue");
    const createdBefore = createdOrder().length;
    const b = [];
    for (let i = 0; i < 4; i++) {
      const h = await stack.start(textJob(`tenants ${run} B ${i}`, 300, { fairnessKey: 'B' }));
      await until(async () => (await stageOf(h)) !== 'reviewing', `B's job ${i} to ask`);
      b.push(h);
    }
    await Promise.all([...a, ...b].map((h) => h.result()));
    // From B's first ask, at most one slot was free to A before each of B's jobs (capacity 2, equal shares).
    const after = createdOrder()
      .slice(createdBefore)
      .map((body) => (body.includes(' B ') ? 'B' : 'A'));
    expect(after.slice(0, 4 + 4 + 2).filter((t) => t === 'B')).toHaveLength(4);
  });

  it('a job that waits longer than timing.admissionTimeoutMs fails AdmissionTimedOut, nothing created, its request withdrawn', async () => {
    stack.sandbox.reset();
    const run = randomUUID().slice(0, 8);
    const holders = await holdBothSlots(run);
    const late = await stack.start(
      textJob(`late ${run}`, 500, { timing: { ...fastTiming, admissionTimeoutMs: 1_000 } }),
    );
    const failure = await failureOf(late);
    expect(failure.type).toBe('AdmissionTimedOut');
    expect(failure.details?.[0]).toMatchObject({ quotaKey: defaultVideoQuotaKey(stack.sandbox.videoBaseUrl) });
    expect(createdOrder().filter((b) => b.includes(`late ${run}`))).toEqual([]);
    await until(async () => (await gateView()).waiting === 0, 'the late request to be withdrawn');
    for (const h of holders) await h.cancel();
    await until(async () => (await gateView()).inFlight === 0, 'the holders to give their slots back');
  });

  it("passes the job's priority and tenant to Temporal's task-queue priority and fairness, and to the gate with the tenant's weight", async () => {
    const client = await testClient();
    const run = randomUUID().slice(0, 8);
    const job = await startReviewThenGenerate(client, {
      businessKey: `priority-${run}`,
      input: textJob(`priority ${run}`, 200, { priority: 1, fairnessKey: 'tenant-a' }),
      taskQueue: stack.taskQueue,
      searchAttributes: false,
    });
    expect((await job.result()).state).toBe('succeeded');
    const events = (await client.workflow.getHandle(job.workflowId).fetchHistory()).events ?? [];
    expect(events[0]?.workflowExecutionStartedEventAttributes?.priority).toMatchObject({
      priorityKey: 1,
      fairnessKey: 'tenant-a',
    });
    // (Its activities inherit it on the server; their events carry no priority of their own.)
    // The gate was asked with the same priority and tenant.
    const gateEvents = (await client.workflow.getHandle(gateId()).fetchHistory()).events ?? [];
    const asks = gateEvents
      .map((e) => e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input)
      .filter((input) => input?.name === 'acquireSlotNow')
      .map((input) => JSON.parse(Buffer.from(input!.args!.payloads![0]!.data!).toString()) as Record<string, unknown>);
    expect(asks.filter((a) => a.workflowId === job.workflowId)).toEqual([
      expect.objectContaining({ priority: 1, fairnessKey: 'tenant-a', weight: 2 }),
    ]);
    // The worker process gave the tenants' weights to the task queue's own fairness when it started.
    for (const taskQueueType of [TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW, TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY]) {
      const { config } = await client.workflowService.describeTaskQueue({
        namespace: client.options.namespace,
        taskQueue: { name: stack.taskQueue },
        taskQueueType,
        reportConfig: true,
      });
      expect(config?.fairnessWeightOverrides).toEqual({ 'tenant-a': 2 });
    }
  });

  it("a tenant's daily budget: its second job fails BudgetExceeded if it chose to, or waits for the next day", async () => {
    stack.sandbox.reset();
    const run = randomUUID().slice(0, 8);
    const first = await stack.start(textJob(`budget ${run} first`, 200, { fairnessKey: 'budget-t' }));
    expect((await first.result()).state).toBe('succeeded');
    const failing = await stack.start(
      textJob(`budget ${run} failing`, 200, { fairnessKey: 'budget-t', onBudgetExceeded: 'fail' }),
    );
    const failure = await failureOf(failing);
    expect(failure.type).toBe('BudgetExceeded');
    expect(failure.details?.[0]).toMatchObject({ fairnessKey: 'budget-t' });
    const waiting = await stack.start(textJob(`budget ${run} waiting`, 200, { fairnessKey: 'budget-t' }));
    await until(async () => (await stageOf(waiting)) === 'waiting_for_quota', 'the job to wait for the next day');
    // Another tenant is not held back by it.
    const other = await stack.start(textJob(`budget ${run} other`, 200, { fairnessKey: 'other-t' }));
    expect((await other.result()).state).toBe('succeeded');
    expect(createdOrder().filter((b) => b.includes(`budget ${run}`))).toHaveLength(2);
    const quota = await runCli(['quota', '--json'], { taskQueue: stack.taskQueue });
    const gate = (JSON.parse(quota.stdout) as { gates: GateStateView[] }).gates.find(
      (g) => g.key === defaultVideoQuotaKey(stack.sandbox.videoBaseUrl),
    );
    expect(gate).toMatchObject({ budgets: { 'budget-t': { tasks: 1 } }, spentToday: { 'budget-t': { tasks: 1 } } });
    await waiting.cancel();
    await until(async () => (await gateView()).waiting === 0, 'the cancelled job to withdraw its request');
  });

  it('a job terminated while it holds a slot frees it within the lease (ADMISSION_LEASE_MS=5000)', async () => {
    stack.sandbox.reset();
    // The terminated run's task still runs at the provider: let it, so that only the gate decides.
    stack.sandbox.setQuotas({ videoMaxTasksInFlight: null });
    const run = randomUUID().slice(0, 8);
    const holders = await holdBothSlots(run);
    await holders[0]!.terminate('test: a holder vanishes without giving its slot back');
    const next = await stack.start(textJob(`after-terminate ${run}`, 200));
    // Both slots are held, one by a run that is gone: the next job waits until the lease check frees it.
    await until(async () => (await stageOf(next)) === 'waiting_for_quota', 'the next job to wait for quota');
    const result = await next.result();
    expect(result.state).toBe('succeeded');
    await holders[1]!.cancel();
    await expect(holders[1]!.result()).rejects.toBeInstanceOf(WorkflowFailedError);
    await until(async () => (await gateView()).inFlight === 0, 'every slot to be back');
  });
});
