// Helpers of the store tests: a worker whose activities have a video store, and the S3-compatible server
// (moto, installed from PyPI by scripts/s3-server.mjs) on a free port.
import { spawn, execFile } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { CreateBucketCommand, ListMultipartUploadsCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { createActivities } from '../../src/activities/index.js';
import type { VideoStore } from '../../src/store/types.js';
import { workflowBundle, type Stack } from '../support/stack.js';
import { startWorker, type RunningWorker } from '../support/temporal.js';

/** A worker on the stack's task queue whose activities copy videos to `store`. */
export async function startStoreWorker(stack: Stack, store: VideoStore | undefined): Promise<RunningWorker> {
  return startWorker({
    taskQueue: stack.taskQueue,
    workflowBundle: workflowBundle(),
    activities: createActivities({ ...stack.clients, callbacks: stack.activitySettings.callbacks, store }),
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export interface S3Server {
  endpoint: string;
  /** The AWS variables a worker needs to reach it (the store reads them like the SDK does). */
  env: Record<string, string>;
  client: S3Client;
  createBucket(name: string): Promise<void>;
  /** Every key under `prefix`, and the keys of open (unfinished) multipart uploads. */
  list(bucket: string, prefix?: string): Promise<{ keys: string[]; openUploads: string[] }>;
  stop(): Promise<void>;
}

export async function startS3Server(): Promise<S3Server> {
  const script = fileURLToPath(new URL('../../scripts/s3-server.mjs', import.meta.url));
  const { stdout } = await promisify(execFile)(process.execPath, [script, '--print-path'], { timeout: 900_000 });
  const port = await freePort();
  const child = spawn(stdout.trim(), ['-H', '127.0.0.1', '-p', String(port)], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr.on('data', (d: Buffer) => (log = (log + d.toString()).slice(-4000)));
  const endpoint = `http://127.0.0.1:${port}`;
  for (const end = Date.now() + 60_000; ;) {
    if (child.exitCode !== null) throw new Error(`moto_server exited (${child.exitCode}):\n${log}`);
    const up = await fetch(`${endpoint}/`).then(
      () => true,
      () => false,
    );
    if (up) break;
    if (Date.now() > end) throw new Error(`moto_server did not answer on ${endpoint}:\n${log}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  const env = {
    AWS_ENDPOINT_URL_S3: endpoint,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'test-access-key',
    AWS_SECRET_ACCESS_KEY: 'test-secret-key',
  };
  const client = new S3Client({
    endpoint,
    region: env.AWS_REGION,
    forcePathStyle: true,
    credentials: { accessKeyId: env.AWS_ACCESS_KEY_ID, secretAccessKey: env.AWS_SECRET_ACCESS_KEY },
  });
  return {
    endpoint,
    env,
    client,
    async createBucket(name) {
      await client.send(new CreateBucketCommand({ Bucket: name }));
    },
    async list(bucket, prefix) {
      const objects = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix }));
      const uploads = await client.send(new ListMultipartUploadsCommand({ Bucket: bucket, Prefix: prefix }));
      return {
        keys: (objects.Contents ?? []).map((o) => o.Key ?? '').sort(),
        openUploads: (uploads.Uploads ?? []).map((u) => u.Key ?? ''),
      };
    },
    async stop() {
      client.destroy();
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
