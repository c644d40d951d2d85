// Worker Deployment versioning on the dev server (docs/upgrading.md#worker-deployment-versioning): two
// worker processes (`src/worker.ts`) configured only by TEMPORAL_DEPLOYMENT_NAME / TEMPORAL_WORKER_BUILD_ID,
// build A then build B of one deployment. A job started while A is current is PINNED: after B becomes
// current it still runs every workflow task on A and finishes there; a job started after the switch runs
// on B. Proved from the histories: each workflow task completed names the deployment version and the
// identity (pid@host) of the worker process that completed it.
import { randomUUID } from 'node:crypto';
import type { Client, WorkflowHandle } from '@temporalio/client';
import proto, { type temporal } from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from 'temporal-review-video-sandbox';
import { defaultVideoQuotaKey } from '../../src/config/admission.js';
import { admissionGateId, gateStateQuery } from '../../src/contract/index.js';
import { progressQuery } from '../../src/job/definitions.js';
import { imageJob, workflowBundle } from '../support/stack.js';
import { replayHistories, temporalAddress, testClient } from '../support/temporal.js';
import { startWorkerProcess, type WorkerProcess } from '../support/worker-process.js';
import { inject } from 'vitest';

const deploymentName = `rtg-versioning-${randomUUID().slice(0, 8)}`;
const taskQueue = `versioning-${randomUUID()}`;
let client: Client;
let sandbox: Sandbox;
const workers: Record<'A' | 'B', WorkerProcess | undefined> = { A: undefined, B: undefined };
const handles: WorkflowHandle[] = [];

async function until<T>(get: () => Promise<T | undefined>, what: string, timeoutMs = 60_000): Promise<T> {
  for (const end = Date.now() + timeoutMs; ;) {
    const value = await get().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** A worker process that is build `buildId` of the deployment, through the variables alone. */
function startBuild(buildId: string): Promise<WorkerProcess> {
  return startWorkerProcess({
    TEMPORAL_ADDRESS: temporalAddress(),
    TEMPORAL_NAMESPACE: inject('temporalNamespace'),
    TEMPORAL_TASK_QUEUE: taskQueue,
    TEMPORAL_DEPLOYMENT_NAME: deploymentName,
    TEMPORAL_WORKER_BUILD_ID: buildId,
    VIDEO_API_BASE_URL: sandbox.videoBaseUrl,
    VIDEO_API_KEY: sandbox.apiKey,
    REVIEW_API_BASE_URL: sandbox.reviewBaseUrl,
    REVIEW_ACCESS_TOKEN: sandbox.accessToken,
    ALLOW_PRIVATE_URLS: 'true',
    // A provider quota, so that the jobs' creates go through the account's gate (never full here).
    VIDEO_MAX_TASKS_IN_FLIGHT: '10',
  });
}

/** Waits until the build has polled (the deployment lists it), makes it current, and waits for the routing. */
async function makeCurrent(buildId: string): Promise<void> {
  const namespace = client.options.namespace;
  await until(async () => {
    const d = await client.workflowService.describeWorkerDeployment({ namespace, deploymentName });
    return d.workerDeploymentInfo?.versionSummaries?.some((v) => v.deploymentVersion?.buildId === buildId) || undefined;
  }, `build ${buildId} to be listed`);
  await client.workflowService.setWorkerDeploymentCurrentVersion({ namespace, deploymentName, buildId });
  await until(async () => {
    const d = await client.workflowService.describeWorkerDeployment({ namespace, deploymentName });
    return d.workerDeploymentInfo?.routingConfig?.currentDeploymentVersion?.buildId === buildId || undefined;
  }, `build ${buildId} to be current`);
}

type Event = temporal.api.history.v1.IHistoryEvent;

/** The workflow tasks of a run: who completed each (identity), on which build, and when. */
async function workflowTasks(handle: WorkflowHandle) {
  const history = await client.workflow.getHandle(handle.workflowId).fetchHistory();
  return (history.events ?? [])
    .filter((e: Event) => e.workflowTaskCompletedEventAttributes)
    .map((e: Event) => ({
      identity: e.workflowTaskCompletedEventAttributes?.identity ?? '',
      buildId: e.workflowTaskCompletedEventAttributes?.deploymentVersion?.buildId ?? '',
      at: Number(e.eventTime?.seconds ?? 0) * 1000 + Math.floor((e.eventTime?.nanos ?? 0) / 1e6),
    }));
}

/** How the server runs `h`'s current run: its versioning behavior and the build it is on. */
async function versioning(h: WorkflowHandle) {
  const d = await client.workflowService.describeWorkflowExecution({
    namespace: client.options.namespace,
    execution: { workflowId: h.workflowId },
  });
  const info = d.workflowExecutionInfo?.versioningInfo;
  return { behavior: info?.behavior, buildId: info?.deploymentVersion?.buildId };
}
const PINNED = proto.temporal.api.enums.v1.VersioningBehavior.VERSIONING_BEHAVIOR_PINNED;

/** A job (polling only: these workers have no callback address) reviewing `url`, saying `prompt`. */
function start(url: string, prompt?: string): Promise<WorkflowHandle> {
  const job = imageJob(url, { callbacks: false });
  const content = job.task.content;
  if (prompt) job.task.content = [{ type: 'text', text: prompt }, ...content.slice(1)];
  return client.workflow.start('ReviewThenGenerate', {
    taskQueue,
    workflowId: `versioning-${randomUUID()}`,
    args: [job],
  });
}

beforeAll(async () => {
  client = await testClient();
  sandbox = await startSandbox({ allowPrivateUrls: true });
  [workers.A, workers.B] = await Promise.all([startBuild('build-a'), startBuild('build-b')]);
});

afterAll(async () => {
  try {
    expect(await replayHistories(handles, workflowBundle())).toBe(handles.length);
  } finally {
    await Promise.all([workers.A?.stop(), workers.B?.stop()]);
    await sandbox?.close();
  }
});

describe('Worker Deployment versioning (PINNED, the default)', () => {
  it('each worker says which version it is at start', () => {
    expect(workers.A!.output()).toContain(`${deploymentName}.build-a (PINNED)`);
    expect(workers.B!.output()).toContain(`${deploymentName}.build-b (PINNED)`);
  });

  it('a run started on build A finishes on A after B becomes current; a new run goes to B', async () => {
    await makeCurrent('build-a');
    // Polling only (these workers have no callback address); the review outlasts the switch to B.
    const slowUrl = 'https://cdn.example.com/versioning/slow.jpg';
    sandbox.setReviewTaskOutcome({ url: slowUrl }, 'completed', 10_000);
    const old = await start(slowUrl);
    handles.push(old);
    await until(
      async () => (await old.query(progressQuery)).review.tasks.some((t) => t.taskId !== '') || undefined,
      'the pinned run to submit its review',
    );

    await makeCurrent('build-b');
    const switchedAt = Date.now();
    expect((await old.describe()).status.name).toBe('RUNNING');
    const fresh = await start('https://cdn.example.com/versioning/fast.jpg');
    handles.push(fresh);
    expect((await fresh.result()).state).toBe('succeeded');
    expect((await old.result()).state).toBe('succeeded');

    const [oldTasks, freshTasks] = await Promise.all([workflowTasks(old), workflowTasks(fresh)]);
    const processOf = (identity: string) => identity.split('@')[0];
    // The pinned run: every workflow task on build A, by A's process, some of them after the switch.
    expect(new Set(oldTasks.map((t) => t.buildId))).toEqual(new Set(['build-a']));
    expect(new Set(oldTasks.map((t) => processOf(t.identity)))).toEqual(new Set([String(workers.A!.pid)]));
    expect(oldTasks.filter((t) => t.at > switchedAt).length).toBeGreaterThan(0);
    // The new run: every workflow task on build B, by B's process.
    expect(new Set(freshTasks.map((t) => t.buildId))).toEqual(new Set(['build-b']));
    expect(new Set(freshTasks.map((t) => processOf(t.identity)))).toEqual(new Set([String(workers.B!.pid)]));
    // The server records both as pinned, each to its own version.
    expect(await versioning(old)).toEqual({ behavior: PINNED, buildId: 'build-a' });
    expect(await versioning(fresh)).toEqual({ behavior: PINNED, buildId: 'build-b' });
    // The quota's gate, started by the first create (after the switch: the old run's review outlasts it),
    // is pinned like any run, to the build current when it started (docs/upgrading.md).
    const gate = client.workflow.getHandle(admissionGateId(defaultVideoQuotaKey(sandbox.videoBaseUrl)));
    expect(await versioning(gate)).toEqual({ behavior: PINNED, buildId: 'build-b' });
    await gate.terminate('test over');
  });

  it('an idle quota gate moves to the build made current, with no job asking', async () => {
    await makeCurrent('build-a');
    const key = `idle-${randomUUID().slice(0, 8)}@example.com`;
    const gate = await client.workflow.start('AdmissionGate', {
      taskQueue,
      workflowId: admissionGateId(key),
      args: [{ key, capacity: 1, versionCheckMs: 1_000 }],
    });
    await until(async () => ((await versioning(gate)).buildId === 'build-a' ? true : undefined), 'the gate on A');
    await makeCurrent('build-b');
    await until(async () => ((await versioning(gate)).buildId === 'build-b' ? true : undefined), 'the gate on B');
    expect(await versioning(gate)).toEqual({ behavior: PINNED, buildId: 'build-b' });
    // It moved by continuing as new, woken by its own timer: its first run got no signal.
    const first = client.workflow.getHandle(gate.workflowId, gate.firstExecutionRunId);
    expect((await first.describe()).status.name).toBe('CONTINUED_AS_NEW');
    const firstEvents = (await first.fetchHistory()).events ?? [];
    expect(firstEvents.filter((e: Event) => e.workflowExecutionSignaledEventAttributes)).toHaveLength(0);
    expect(firstEvents.filter((e: Event) => e.timerFiredEventAttributes).length).toBeGreaterThan(0);
    await gate.terminate('test over');
  });

  it('a batch moves to the build made current: its later children start there', async () => {
    await makeCurrent('build-a');
    // The first job's review takes 5 s: the switch to B happens while it runs, on A.
    const slowUrl = 'https://cdn.example.com/versioning/batch-slow.jpg';
    sandbox.setReviewTaskOutcome({ url: slowUrl }, 'completed', 5_000);
    const urls = [slowUrl, 1, 2, 3].map((u) =>
      typeof u === 'string' ? u : `https://cdn.example.com/versioning/b${u}.jpg`,
    );
    const batchId = `versioning-batch-${randomUUID()}`;
    const batch = await client.workflow.start('ReviewThenGenerateBatch', {
      taskQueue,
      workflowId: batchId,
      args: [{ jobs: urls.map((url) => imageJob(url, { callbacks: false })), concurrency: 1 }],
    });
    const child = (i: number) => client.workflow.getHandle(`${batchId}/${i}`);
    await until(async () => ((await versioning(child(0))).buildId === 'build-a' ? true : undefined), 'job 0 on A');
    await makeCurrent('build-b');

    const summary = (await batch.result()) as { counts: { succeeded: number } };
    expect(summary.counts.succeeded).toBe(4);
    handles.push(...[0, 1, 2, 3].map(child), batch);
    // The job under way finished on A; the batch drained, continued as new onto B, and started the rest there.
    expect((await versioning(child(0))).buildId).toBe('build-a');
    for (const i of [1, 2, 3]) expect(await versioning(child(i))).toEqual({ behavior: PINNED, buildId: 'build-b' });
    expect((await versioning(batch)).buildId).toBe('build-b');
    const firstRun = client.workflow.getHandle(batchId, batch.firstExecutionRunId);
    expect((await firstRun.describe()).status.name).toBe('CONTINUED_AS_NEW');
  });

  it('a quota gate moves to the current build at its next ask, keeping its slots; A can then stop', async () => {
    await makeCurrent('build-a');
    const gate = client.workflow.getHandle(admissionGateId(defaultVideoQuotaKey(sandbox.videoBaseUrl)));
    // The holder's video takes 8 s: it holds its slot of the (new) gate, pinned to A, across the switch.
    sandbox.setVideoOutcome({ promptIncludes: 'holds its slot' }, 'succeeded', 8_000);
    const holder = await start('https://cdn.example.com/versioning/holder.jpg', 'A video that holds its slot');
    handles.push(holder);
    await until(
      async () => ((await gate.query(gateStateQuery)).inFlight === 1 ? true : undefined),
      'the holder to hold its slot',
    );
    expect(await versioning(gate)).toEqual({ behavior: PINNED, buildId: 'build-a' });
    const firstRun = (await gate.describe()).runId;

    await makeCurrent('build-b');
    // The next ask wakes the gate on A, which continues as new onto B with the holder's slot.
    const next = await start('https://cdn.example.com/versioning/next.jpg');
    handles.push(next);
    expect((await next.result()).state).toBe('succeeded');
    expect((await holder.result()).state).toBe('succeeded');
    expect((await gate.describe()).runId).not.toBe(firstRun);
    expect(await versioning(gate)).toEqual({ behavior: PINNED, buildId: 'build-b' });
    expect((await client.workflow.getHandle(gate.workflowId, firstRun).describe()).status.name).toBe(
      'CONTINUED_AS_NEW',
    );
    // The holder (still on A) gave its slot back to the gate's run on B.
    await until(async () => ((await gate.query(gateStateQuery)).inFlight === 0 ? true : undefined), 'the release');

    // Nothing is left on A: it can stop, and jobs still pass the gate.
    await workers.A!.stop();
    const after = await start('https://cdn.example.com/versioning/after.jpg');
    handles.push(after);
    expect((await after.result()).state).toBe('succeeded');
    expect(sandbox.quotaStats().video.refused).toBe(0);
    await gate.terminate('test over');
  });
});
