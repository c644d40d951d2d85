// A worker killed (SIGKILL: no thrown error, no clean shutdown) after the create response and before the
// activity completed: a new worker finishes the job, and one task exists. A job that may resubmit finds
// the task id in the heartbeat the create recorded; a job that never resubmits records none (one billable
// action less per create) and adopts the task its callback names.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { defaultPayloadConverter } from '@temporalio/common';
import type { WorkflowHandle } from '@temporalio/client';
import { expect, inject, it } from 'vitest';
import { countOps, fastTiming, imageJob, withStack, type Stack } from '../support/stack.js';
import { temporalAddress } from '../support/temporal.js';

let stack: Stack;
withStack({ noWorker: true }, (s) => (stack = s));

/** Starts the crash worker, runs `during` while it holds the create, then kills it and starts a good one. */
async function crashDuringCreate(
  resubmitOnAmbiguity: boolean,
  during: (handle: WorkflowHandle, printed: () => string) => Promise<string>,
): Promise<{ created: string; taskId: string }> {
  stack.sandbox.reset();
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', fileURLToPath(new URL('../fixtures/crash-worker.ts', import.meta.url))],
    {
      env: {
        ...process.env,
        TEMPORAL_ADDRESS: temporalAddress(),
        WORKFLOW_BUNDLE_PATH: inject('workflowBundlePath'),
        TEMPORAL_TASK_QUEUE: stack.taskQueue,
        VIDEO_API_BASE_URL: stack.sandbox.videoBaseUrl,
        VIDEO_API_KEY: stack.sandbox.apiKey,
        REVIEW_API_BASE_URL: stack.sandbox.reviewBaseUrl,
        REVIEW_ACCESS_TOKEN: stack.sandbox.accessToken,
        CALLBACK_PUBLIC_URL: stack.receiver.url,
        CALLBACK_SECRET: stack.secret,
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
  try {
    const handle = await stack.start(
      imageJob(undefined, { resubmitOnAmbiguity, timing: { ...fastTiming, callTimeoutMs: 4_000 } }),
    );
    const created = await during(handle, () => out);
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    const good = await stack.startWorker();
    try {
      return { created, taskId: (await handle.result()).taskId };
    } finally {
      await good.stop(); // the next test's job must reach its own crash worker
    }
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}

async function until<T>(what: string, read: () => Promise<T | undefined>): Promise<T> {
  const end = Date.now() + 60_000;
  while (Date.now() < end) {
    const value = await read();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no ${what} within 60 s`);
}

it('a job that may resubmit: the new worker returns the task id the heartbeat recorded, and one task exists', async () => {
  const { created, taskId } = await crashDuringCreate(true, async (handle, printed) => {
    // Wait until the server holds the heartbeat with the task id of the still-running create attempt.
    const recorded = await until('heartbeat with the task id', async () => {
      const desc = await handle.describe();
      const pending = desc.raw.pendingActivities?.find((a) => a.activityType?.name === 'rtgCreateVideoTask');
      const payload = pending?.heartbeatDetails?.payloads?.[0];
      return payload ? (defaultPayloadConverter.fromPayload(payload) as { taskId?: string }).taskId : undefined;
    });
    expect(printed()).toContain(`created ${recorded}`);
    return recorded;
  });
  expect(taskId).toBe(created);
  expect(stack.sandbox.videoTasks()).toHaveLength(1);
  expect(countOps(stack.sandbox)['video.create']).toBe(1);
});

it('a job that never resubmits: no heartbeat; the retry is ambiguous and adopts the task its callback names', async () => {
  const { created, taskId } = await crashDuringCreate(false, async (handle, printed) => {
    const id = await until('created task', async () => /created (\S+)/.exec(printed())?.[1]);
    const desc = await handle.describe();
    const pending = desc.raw.pendingActivities?.find((a) => a.activityType?.name === 'rtgCreateVideoTask');
    expect(pending).toBeDefined();
    expect(pending?.heartbeatDetails?.payloads ?? []).toHaveLength(0);
    return id;
  });
  expect(taskId).toBe(created);
  expect(stack.sandbox.videoTasks()).toHaveLength(1);
  expect(countOps(stack.sandbox)['video.create']).toBe(1);
});
