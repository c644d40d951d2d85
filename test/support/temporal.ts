// Helpers every workflow test uses: a client to the run's dev server, a real worker on a unique task
// queue, and replay of the histories the test produced.
import { randomUUID } from 'node:crypto';
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import { NativeConnection, Worker, type WorkerOptions, type WorkflowBundleOption } from '@temporalio/worker';
import { inject } from 'vitest';
import { containsSignedCallbackUrl } from '../../src/callback-signing.js';

let clientPromise: Promise<Client> | undefined;

export function temporalAddress(): string {
  return inject('temporalAddress');
}

export function testClient(): Promise<Client> {
  clientPromise ??= Connection.connect({ address: temporalAddress() }).then(
    (connection) => new Client({ connection, namespace: inject('temporalNamespace') }),
  );
  return clientPromise;
}

export function uniqueTaskQueue(prefix = 'test'): string {
  return `${prefix}-${randomUUID()}`;
}

export interface RunningWorker {
  worker: Worker;
  taskQueue: string;
  stop(): Promise<void>;
}

/** Starts a real worker against the dev server; `stop()` shuts it down and waits for it (once, however often called). */
export async function startWorker(
  options: Omit<WorkerOptions, 'connection' | 'namespace' | 'taskQueue'> & { taskQueue?: string },
): Promise<RunningWorker> {
  const connection = await NativeConnection.connect({ address: temporalAddress() });
  const taskQueue = options.taskQueue ?? uniqueTaskQueue();
  const worker = await Worker.create({ ...options, connection, namespace: inject('temporalNamespace'), taskQueue });
  const running = worker.run();
  let stopped: Promise<void> | undefined;
  return {
    worker,
    taskQueue,
    stop() {
      stopped ??= (async () => {
        if (worker.getState() === 'RUNNING') worker.shutdown();
        await running;
        await connection.close();
      })();
      return stopped;
    },
  };
}

/**
 * Fetches each workflow's history from the server and replays it against the current workflow code
 * (given as the workflows path, or as an already built bundle to skip webpack). Throws on the first non-determinism.
 */
export async function replayHistories(
  handles: Array<WorkflowHandle | { workflowId: string }>,
  workflows: string | WorkflowBundleOption,
): Promise<number> {
  const client = await testClient();
  const histories = await Promise.all(
    handles.map(async (h) => ({
      workflowId: h.workflowId,
      history: await client.workflow.getHandle(h.workflowId).fetchHistory(),
    })),
  );
  const options = typeof workflows === 'string' ? { workflowsPath: workflows } : { workflowBundle: workflows };
  let replayed = 0;
  for await (const r of Worker.runReplayHistories(options, histories)) {
    if (r.error) throw new Error(`replay of ${r.workflowId} failed: ${String(r.error)}`);
    replayed++;
  }
  return replayed;
}

/**
 * Fails if any of the secrets, or any callback signature, appears anywhere in the histories (inputs,
 * results, failures, details).
 */
export async function assertNoSecretsInHistories(
  handles: Array<{ workflowId: string }>,
  secrets: string[],
): Promise<number> {
  const client = await testClient();
  let scanned = 0;
  for (const h of handles) {
    const history = await client.workflow.getHandle(h.workflowId).fetchHistory();
    const text = JSON.stringify(history);
    // Payloads are base64 in the JSON form of a history: search the decoded data too.
    const decoded = text.replace(/"data":"([A-Za-z0-9+/=]+)"/g, (_m, b64: string) =>
      Buffer.from(b64, 'base64').toString('utf8'),
    );
    for (const secret of secrets) {
      if (text.includes(secret) || decoded.includes(secret))
        throw new Error(`a secret appears in the history of ${h.workflowId}`);
    }
    if (containsSignedCallbackUrl(decoded))
      throw new Error(`a signed callback URL appears in the history of ${h.workflowId}`);
    scanned++;
  }
  return scanned;
}
