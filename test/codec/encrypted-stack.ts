// What the encryption tests run on: the sandbox over HTTP, the callback receiver with an encrypting client,
// and our worker (`src/worker.ts`, as `npm run worker` runs it) in child processes whose keys the test
// chooses; plus a scan of stored histories as Temporal holds them (no codec), and their replay.
import { randomBytes, randomUUID } from 'node:crypto';
import { spawn } from 'node:child_process';
import { Worker } from '@temporalio/worker';
import { inject } from 'vitest';
import { startCallbackServer, type CallbackServer } from '../../src/callbacks/server.js';
import { startSandbox, type Sandbox, type SandboxOptions } from 'temporal-review-video-sandbox';
import { connectClient, type ConnectedClient } from '../../src/temporal/connect-client.js';
import { dataConverterFromEnv } from '../../src/codec/data-converter.js';
import { cliPath, repoRoot } from '../support/run-cli.js';
import { workflowBundle } from '../support/stack.js';
import { temporalAddress, testClient } from '../support/temporal.js';
import { startWorkerProcess, type WorkerProcess } from '../support/worker-process.js';

export interface EncryptedStack {
  sandbox: Sandbox;
  receiver: CallbackServer;
  taskQueue: string;
  /** The Temporal and service settings of a worker or client of this stack, with these keys. */
  env(keys: string): Record<string, string>;
  worker(keys: string, extra?: Record<string, string>): Promise<WorkerProcess>;
  /** A client made by our client helper (connectClient) from that environment. */
  client(keys: string): Promise<ConnectedClient>;
  stop(): Promise<void>;
}

export async function startEncryptedStack(
  receiverKeys: string,
  sandboxOptions: SandboxOptions = {},
): Promise<EncryptedStack> {
  const sandbox = await startSandbox({ allowPrivateUrls: true, ...sandboxOptions });
  const taskQueue = `rtg-enc-${randomUUID()}`;
  const secret = `cb-secret-${randomBytes(16).toString('hex')}`;
  const env = (keys: string): Record<string, string> => ({
    TEMPORAL_ADDRESS: temporalAddress(),
    TEMPORAL_NAMESPACE: inject('temporalNamespace'),
    TEMPORAL_TASK_QUEUE: taskQueue,
    TEMPORAL_PROFILE: '',
    VIDEO_API_BASE_URL: sandbox.videoBaseUrl,
    VIDEO_API_KEY: sandbox.apiKey,
    REVIEW_API_BASE_URL: sandbox.reviewBaseUrl,
    REVIEW_ACCESS_TOKEN: sandbox.accessToken,
    HTTP_TIMEOUT_MS: '5000',
    ALLOW_PRIVATE_URLS: 'true',
    CALLBACK_PUBLIC_URL: receiver.url,
    CALLBACK_SECRET: secret,
    PAYLOAD_ENCRYPTION_KEYS: keys,
    PAYLOAD_ENCRYPTION_KEYS_FILE: '',
  });
  // The receiver signals and queries runs as src/callbacks/main.ts does: with the keys' data converter.
  const receiverClient = await connectClient({
    TEMPORAL_ADDRESS: temporalAddress(),
    TEMPORAL_NAMESPACE: inject('temporalNamespace'),
    TEMPORAL_PROFILE: '',
    PAYLOAD_ENCRYPTION_KEYS: receiverKeys,
  });
  const receiver = await startCallbackServer({ client: receiverClient.client, secret, host: '127.0.0.1', port: 0 });
  const workers: WorkerProcess[] = [];
  const clients: ConnectedClient[] = [receiverClient];
  return {
    sandbox,
    receiver,
    taskQueue,
    env,
    async worker(keys, extra = {}) {
      const w = await startWorkerProcess({ ...env(keys), ...extra });
      workers.push(w);
      return w;
    },
    async client(keys) {
      const c = await connectClient(env(keys));
      clients.push(c);
      return c;
    },
    async stop() {
      await Promise.all(workers.map((w) => w.stop()));
      await receiver.close();
      await Promise.allSettled(clients.map((c) => c.close()));
      await sandbox.close();
    },
  };
}

/** base64 of the metadata value `binary/encrypted`, as the JSON form of a history holds it. */
const ENCRYPTED_B64 = Buffer.from('binary/encrypted').toString('base64');

export interface StoredHistory {
  workflowId: string;
  /** The JSON form with every base64 `data` field decoded: what anyone with database access would read. */
  readable: string;
  encryptedPayloads: number;
  /** The key ids named by its encrypted payloads. */
  keyIds: Set<string>;
}

/** Fetches histories as stored, through a client that has no codec. */
export async function storedHistories(workflowIds: string[]): Promise<StoredHistory[]> {
  const client = await testClient();
  return Promise.all(
    workflowIds.map(async (workflowId) => {
      const text = JSON.stringify(await client.workflow.getHandle(workflowId).fetchHistory());
      const readable = text.replace(/"data":"([A-Za-z0-9+/=]*)"/g, (_m, b64: string) =>
        Buffer.from(b64, 'base64').toString('utf8'),
      );
      const keyIds = new Set(
        [...text.matchAll(/"encryption-key-id":"([A-Za-z0-9+/=]+)"/g)].map((m) =>
          Buffer.from(m[1]!, 'base64').toString(),
        ),
      );
      return { workflowId, readable, encryptedPayloads: text.split(ENCRYPTED_B64).length - 1, keyIds };
    }),
  );
}

/** Replays the histories against the current workflow code, decoding with the keys' data converter. */
export async function replayEncrypted(workflowIds: string[], keys: string): Promise<number> {
  const client = await testClient();
  const histories = await Promise.all(
    workflowIds.map(async (workflowId) => ({
      workflowId,
      history: await client.workflow.getHandle(workflowId).fetchHistory(),
    })),
  );
  const dataConverter = dataConverterFromEnv({ PAYLOAD_ENCRYPTION_KEYS: keys })!;
  let replayed = 0;
  for await (const r of Worker.runReplayHistories({ workflowBundle: workflowBundle(), dataConverter }, histories)) {
    if (r.error) throw new Error(`replay of ${r.workflowId} failed: ${String(r.error)}`);
    replayed++;
  }
  return replayed;
}

/** The real CLI (src/cli.ts) with this environment. */
export function runCliWith(
  env: Record<string, string>,
  args: string[],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', cliPath, ...args], {
      cwd: repoRoot,
      env: { ...process.env, ...env, FORCE_COLOR: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
