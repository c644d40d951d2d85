// The local-folder store on the dev server: a job with `store: true` copies its video to VIDEO_STORE
// (file:///dir), streamed, hashed, under a key from the workflow id and task id; an expired address is
// refreshed by a query; a reset mid-stream is retried; a job's failure to store is VideoStoreFailed; a job
// asking to store on a worker without a store is refused before any call; and a
// worker SIGKILLed mid-stream leaves only a temporary file, which the retry discards.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { FailureType } from '../../src/model/failure-types.js';
import { videoBlock } from '../../packages/sandbox/src/video-file.js';
import { FileVideoStore } from '../../src/store/file-store.js';
import { countOps, imageJob, withStack, type Stack } from '../support/stack.js';
import { temporalAddress, type RunningWorker } from '../support/temporal.js';
import { startStoreWorker } from './support.js';

const FILE_BYTES = 3 * 1024 * 1024 + 123; // not a whole number of blocks
let stack: Stack;
let worker: RunningWorker | undefined;
let dir: string;
withStack({ noWorker: true, sandbox: { videoFileBytes: FILE_BYTES } }, (s) => (stack = s));

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rtg-store-'));
  worker = await startStoreWorker(stack, new FileVideoStore(dir));
});
afterAll(async () => {
  await worker?.stop();
  await rm(dir, { recursive: true, force: true });
});

/** The sandbox's bytes of a task's file, hashed the same way. */
function expectedSha256(taskId: string, bytes: number): string {
  const block = videoBlock(taskId);
  const hash = createHash('sha256');
  for (let sent = 0; sent < bytes; sent += block.length)
    hash.update(block.subarray(0, Math.min(block.length, bytes - sent)));
  return hash.digest('hex');
}

const storeJob = (prompt: string) => {
  const job = imageJob(undefined, { store: true });
  const content = job.task.content;
  return { ...job, task: { ...job.task, content: [{ type: 'text' as const, text: prompt }, ...content.slice(1)] } };
};

it('a job with store: true copies its video to the folder and returns stored { url, bytes, sha256, contentType }', async () => {
  const handle = await stack.start(storeJob('store to a folder'));
  const result = await handle.result();
  const sha256 = expectedSha256(result.taskId, FILE_BYTES);
  expect(result.stored).toEqual({
    url: expect.stringMatching(/^file:\/\//),
    bytes: FILE_BYTES,
    sha256,
    contentType: 'video/mp4',
  });
  const path = fileURLToPath(result.stored!.url);
  expect(path).toBe(join(dir, encodeURIComponent(handle.workflowId), `${result.taskId}.mp4`));
  expect(
    createHash('sha256')
      .update(await readFile(path))
      .digest('hex'),
  ).toBe(sha256);
  // One video and its manifest, no temporary file left.
  expect((await readdir(join(dir, encodeURIComponent(handle.workflowId)))).sort()).toEqual([
    `${result.taskId}.mp4`,
    `${result.taskId}.mp4.manifest.json`,
  ]);
  expect(countOps(stack.sandbox)['video.create']).toBeGreaterThanOrEqual(1);
});

it('an expired video address (403) is refreshed by a query of the task, and the copy completes', async () => {
  stack.sandbox.setVideoFileFault({ mode: 'expired' });
  const handle = await stack.start(storeJob('store after expiry'));
  const result = await handle.result();
  expect(result.stored?.sha256).toBe(expectedSha256(result.taskId, FILE_BYTES));
  const downloads = stack.sandbox
    .requests()
    .filter((r) => r.path.startsWith('/videos/') && r.path.endsWith(`/${result.taskId}.mp4`));
  expect(downloads.map((r) => r.status)).toEqual([403, 200]);
  // The fresh address came from a query made after the 403.
  const refresh = stack.sandbox
    .requests()
    .filter((r) => r.operation === 'video.get' && r.taskId === result.taskId && r.seq > downloads[0]!.seq);
  expect(refresh.length).toBeGreaterThanOrEqual(1);
});

it('a reset mid-stream is retried: the copy restarts and completes, leaving one file', async () => {
  stack.sandbox.setVideoFileFault({ mode: 'reset', afterBytes: 1024 * 1024 });
  const handle = await stack.start(storeJob('store after a reset'));
  const result = await handle.result();
  expect(result.stored?.sha256).toBe(expectedSha256(result.taskId, FILE_BYTES));
  const files = await readdir(join(dir, encodeURIComponent(handle.workflowId)));
  expect(files.sort()).toEqual([`${result.taskId}.mp4`, `${result.taskId}.mp4.manifest.json`]);
  const downloads = stack.sandbox
    .requests()
    .filter((r) => r.path.startsWith('/videos/') && r.path.endsWith(`/${result.taskId}.mp4`));
  expect(downloads.length).toBe(2);
});

it('an address that stays expired after the refresh fails the run as VideoStoreFailed, with one video task', async () => {
  stack.sandbox.setVideoFileFault({ mode: 'expired', times: 2 });
  const handle = await stack.start(storeJob('always expired'));
  const err = await handle.result().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(WorkflowFailedError);
  const cause = (err as WorkflowFailedError).cause as ApplicationFailure;
  expect(cause).toBeInstanceOf(ApplicationFailure);
  expect(cause.type).toBe(FailureType.VideoStoreFailed);
  expect(cause.message).toMatch(/could not be stored: .*403 \(expired\), and so did the fresh address/);
  expect(stack.sandbox.videoTasks().filter((t) => JSON.stringify(t.body).includes('always expired'))).toHaveLength(1);
  expect((await handle.query('progress')) as { stage: string }).toMatchObject({ stage: 'failed' });
});

it('a job with store: true on a worker without VIDEO_STORE is refused at its start, before any call, naming the setting', async () => {
  const noStore = await startStoreWorker(stack, undefined);
  await worker?.stop();
  try {
    const callsBefore = stack.sandbox.requests().length;
    const handle = await stack.start(storeJob('no store here'));
    const err = (await handle.result().catch((e: unknown) => e)) as WorkflowFailedError;
    const cause = err.cause as ApplicationFailure;
    expect(cause.type).toBe(FailureType.InvalidInput);
    expect(cause.message).toMatch(/store: .*VIDEO_STORE/);
    expect(cause.details?.[0]).toEqual({
      problems: [{ field: 'store', rule: expect.stringContaining('VIDEO_STORE') as string }],
    });
    // Nothing was paid for: no review submit, no video create, no call of any kind.
    expect(stack.sandbox.requests().slice(callsBefore)).toEqual([]);
    // Its progress reads failed (`review-video status`), not the stage it would have begun with.
    expect((await handle.query('progress')) as { stage: string }).toMatchObject({ stage: 'failed' });
  } finally {
    await noStore.stop();
    worker = await startStoreWorker(stack, new FileVideoStore(dir));
  }
});

it('a worker SIGKILLed mid-stream leaves no partial file; the retry on another worker writes exactly one', async () => {
  await worker?.stop();
  worker = undefined;
  stack.sandbox.setVideoFileFault({ mode: 'slow', bytesPerSecond: 512 * 1024 });
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', fileURLToPath(new URL('./fixtures/store-worker.ts', import.meta.url))],
    {
      env: {
        ...process.env,
        TEMPORAL_ADDRESS: temporalAddress(),
        WORKFLOW_BUNDLE_PATH: inject('workflowBundlePath'),
        TEMPORAL_NAMESPACE: inject('temporalNamespace'),
        TEMPORAL_TASK_QUEUE: stack.taskQueue,
        VIDEO_API_BASE_URL: stack.sandbox.videoBaseUrl,
        VIDEO_API_KEY: stack.sandbox.apiKey,
        REVIEW_API_BASE_URL: stack.sandbox.reviewBaseUrl,
        REVIEW_ACCESS_TOKEN: stack.sandbox.accessToken,
        CALLBACK_PUBLIC_URL: stack.receiver.url,
        CALLBACK_SECRET: stack.secret,
        ALLOW_PRIVATE_URLS: 'true',
        VIDEO_STORE: pathToFileURL(dir).href,
      },
      stdio: ['ignore', 'ignore', 'ignore'],
    },
  );
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
  try {
    const job = storeJob('store through a crash');
    const handle = await stack.start({ ...job, timing: { ...job.timing, callTimeoutMs: 2_000 } });
    const folder = join(dir, encodeURIComponent(handle.workflowId));
    // Killed once part of the file is on disk under its temporary name.
    for (const end = Date.now() + 90_000; Date.now() < end; await new Promise((r) => setTimeout(r, 100))) {
      const names = await readdir(folder).catch(() => [] as string[]);
      if (names.some((n) => n.includes('.part-'))) break;
    }
    await new Promise((r) => setTimeout(r, 500));
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    expect((await readdir(folder)).filter((n) => !n.includes('.part-'))).toEqual([]);

    worker = await startStoreWorker(stack, new FileVideoStore(dir));
    const result = await handle.result();
    expect(result.stored?.sha256).toBe(expectedSha256(result.taskId, FILE_BYTES));
    expect((await readdir(folder)).sort()).toEqual([`${result.taskId}.mp4`, `${result.taskId}.mp4.manifest.json`]);
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
});
