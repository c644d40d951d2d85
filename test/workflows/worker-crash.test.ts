// A worker killed (SIGKILL: no thrown error, no clean shutdown) after the create response and before the
// activity completed: a new worker finishes the job from the recorded heartbeat, and one task exists.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { defaultPayloadConverter } from '@temporalio/common';
import { expect, it } from 'vitest';
import { countOps, fastTiming, imageJob, withStack, type Stack } from '../support/stack.js';
import { temporalAddress } from '../support/temporal.js';

let stack: Stack;
withStack({ noWorker: true }, (s) => (stack = s));

it('a worker killed between the create response and activity completion loses nothing and creates one task', async () => {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', fileURLToPath(new URL('../fixtures/crash-worker.ts', import.meta.url))],
    {
      env: {
        ...process.env,
        TEMPORAL_ADDRESS: temporalAddress(),
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
    const handle = await stack.start(imageJob(undefined, { timing: { ...fastTiming, callTimeoutMs: 4_000 } }));
    // Wait until the server holds the heartbeat with the task id of the still-running create attempt.
    let recorded: string | undefined;
    const end = Date.now() + 60_000;
    while (!recorded && Date.now() < end) {
      const desc = await handle.describe();
      const pending = desc.raw.pendingActivities?.find((a) => a.activityType?.name === 'rtgCreateVideoTask');
      const payload = pending?.heartbeatDetails?.payloads?.[0];
      if (payload) recorded = (defaultPayloadConverter.fromPayload(payload) as { taskId?: string }).taskId;
      if (!recorded) await new Promise((r) => setTimeout(r, 100));
    }
    expect(recorded).toBeDefined();
    expect(out).toContain(`created ${recorded}`);
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');

    await stack.startWorker();
    const result = await handle.result();
    expect(result.taskId).toBe(recorded);
    expect(stack.sandbox.videoTasks()).toHaveLength(1);
    expect(countOps(stack.sandbox)['video.create']).toBe(1);
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
});
