// The S3 store on the dev server, against a real S3-compatible server (moto, installed from PyPI by
// scripts/s3-server.mjs): a job's video lands as one object, streamed as a multipart upload; a stored
// object with the same size and hash is the answer of a retry; and a worker SIGKILLed mid-stream leaves
// no partial object: the retry on another worker completes exactly one.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { defaultPayloadConverter } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import type { Readable } from 'node:stream';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { createActivities } from '../../src/activities/index.js';
import { createVideoStore, parseVideoStore } from '../../src/store/index.js';
import type { VideoStore } from '../../src/store/types.js';
import { fastTiming, imageJob, withStack, type Stack } from '../support/stack.js';
import { temporalAddress, type RunningWorker } from '../support/temporal.js';
import { startS3Server, startStoreWorker, type S3Server } from './support.js';

const MiB = 1024 * 1024;
const FILE_BYTES = 20 * MiB + 7; // three parts of 8 MiB, the last one short
const BUCKET = 'rtg-videos';
let stack: Stack;
let s3: S3Server;
let store: VideoStore;
let worker: RunningWorker | undefined;
withStack({ noWorker: true, sandbox: { videoFileBytes: FILE_BYTES } }, (s) => (stack = s));

beforeAll(async () => {
  s3 = await startS3Server();
  await s3.createBucket(BUCKET);
  store = createVideoStore(parseVideoStore(`s3://${BUCKET}/videos`), s3.env);
}, 900_000);
afterAll(async () => {
  await worker?.stop();
  await store?.close();
  await s3?.stop();
});

async function sha256Of(key: string): Promise<string> {
  const object = await s3.client.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
  const hash = createHash('sha256');
  for await (const chunk of object.Body as Readable) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

const downloads = (taskId: string) =>
  stack.sandbox.requests().filter((r) => r.path.startsWith('/videos/') && r.path.endsWith(`/${taskId}.mp4`));

it('stores the video as one S3 object (multipart), with its manifest and no open upload', async () => {
  worker = await startStoreWorker(stack, store);
  const handle = await stack.start(imageJob(undefined, { store: true }));
  const result = await handle.result();
  const key = `videos/${encodeURIComponent(handle.workflowId)}/${result.taskId}.mp4`;
  expect(result.stored).toMatchObject({ url: `s3://${BUCKET}/${key}`, bytes: FILE_BYTES, contentType: 'video/mp4' });
  expect(await sha256Of(key)).toBe(result.stored?.sha256);
  expect(await s3.list(BUCKET, `videos/${encodeURIComponent(handle.workflowId)}/`)).toEqual({
    keys: [key, `${key}.manifest.json`],
    openUploads: [],
  });

  // A retry that finds the object with the same size and hash returns it without downloading again.
  const activities = createActivities({ ...stack.clients, store });
  const again = await new MockActivityEnvironment().run(activities.rtgStoreVideo, {
    workflowId: handle.workflowId,
    taskId: result.taskId,
    videoUrl: result.videoUrl,
  });
  expect(again).toEqual(result.stored);
  expect(downloads(result.taskId)).toHaveLength(1);
  await worker.stop();
  worker = undefined;
});

it('a worker SIGKILLed mid-stream leaves no partial object; the retry on another worker stores exactly one', async () => {
  // The first download crawls (4 MiB/s), so the kill lands while parts are being uploaded.
  stack.sandbox.setVideoFileFault({ mode: 'slow', bytesPerSecond: 4 * MiB });
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', fileURLToPath(new URL('./fixtures/store-worker.ts', import.meta.url))],
    {
      env: {
        ...process.env,
        ...s3.env,
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
        VIDEO_STORE: `s3://${BUCKET}/crash`,
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
  try {
    const handle = await stack.start(
      imageJob(undefined, { store: true, timing: { ...fastTiming, callTimeoutMs: 3_000 } }),
    );
    const prefix = `crash/${encodeURIComponent(handle.workflowId)}/`;
    // Wait until the server holds a heartbeat of more than one part streamed.
    let bytesDone = 0;
    for (const end = Date.now() + 90_000; bytesDone <= 9 * MiB && Date.now() < end;) {
      const desc = await handle.describe();
      const pending = desc.raw.pendingActivities?.find((a) => a.activityType?.name === 'rtgStoreVideo');
      const payload = pending?.heartbeatDetails?.payloads?.[0];
      if (payload) bytesDone = (defaultPayloadConverter.fromPayload(payload) as { bytesDone: number }).bytesDone;
      if (bytesDone <= 9 * MiB) await new Promise((r) => setTimeout(r, 100));
    }
    expect(bytesDone).toBeGreaterThan(9 * MiB);
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    // Killed mid-stream: an open multipart upload at most, never an object.
    const left = await s3.list(BUCKET, prefix);
    expect(left.keys).toEqual([]);

    worker = await startStoreWorker(stack, createVideoStore(parseVideoStore(`s3://${BUCKET}/crash`), s3.env));
    const result = await handle.result();
    const key = `${prefix}${result.taskId}.mp4`;
    expect(result.stored).toMatchObject({ url: `s3://${BUCKET}/${key}`, bytes: FILE_BYTES });
    expect(await s3.list(BUCKET, prefix)).toEqual({ keys: [key, `${key}.manifest.json`], openUploads: [] });
    expect(await sha256Of(key)).toBe(result.stored?.sha256);
    expect(stack.sandbox.videoTasks()).toHaveLength(2); // one per test: the video task was never re-created
    expect(downloads(result.taskId).length).toBe(2);
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
});
