// What a caller in another language runs against in its test: a namespace of its own on the run's dev
// server, the sandbox over HTTP, the callback receiver, and our worker (`src/worker.ts`, as `npm run worker`
// runs it) in a child process, with the keys the test chooses or none. Neither the worker nor the caller is
// told a task queue: both use their own defaults, so the test fails when the two defaults differ. The
// namespace of its own keeps this worker on the default queue away from every other test's jobs.
import { randomBytes } from 'node:crypto';
import { Client } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time.js';
import { Worker } from '@temporalio/worker';
import { startCallbackServer, type CallbackServer } from '../../src/callbacks/server.js';
import { dataConverterFromEnv } from '../../src/codec/data-converter.js';
import { startSandbox, type Sandbox, type SandboxOptions } from 'temporal-review-video-sandbox';
import { connectClient, type ConnectedClient } from '../../src/temporal/connect-client.js';
import { containsSignedCallbackUrl } from '../../src/callback-signing.js';
import { signedCallbackSecrets, workflowBundle } from '../support/stack.js';
import { temporalAddress, testClient } from '../support/temporal.js';
import { sandboxServiceEnv } from '../support/services-stack.js';
import { startWorkerProcess, type WorkerProcess } from '../support/worker-process.js';

export interface CallerStack {
  namespace: string;
  sandbox: Sandbox;
  worker: WorkerProcess;
  /** A client of the namespace without a codec: histories as Temporal stores them. */
  rawClient: Client;
  /** The Temporal settings a caller needs here: the address and the namespace, no task queue. */
  callerEnv: Record<string, string>;
  /** Replays every history of the namespace's runs and scans them for the secrets; returns how many. */
  checkHistories(workflowIds: string[]): Promise<number>;
  stop(): Promise<void>;
}

export async function startCallerStack(
  namespace: string,
  keys: string | undefined,
  sandboxOptions: SandboxOptions,
): Promise<CallerStack> {
  const connection = (await testClient()).connection;
  await connection.workflowService.registerNamespace({
    namespace,
    workflowExecutionRetentionPeriod: msToTs('1 day'),
  });
  const rawClient = new Client({ connection, namespace });
  const temporalEnv = {
    TEMPORAL_ADDRESS: temporalAddress(),
    TEMPORAL_NAMESPACE: namespace,
    TEMPORAL_PROFILE: '',
    PAYLOAD_ENCRYPTION_KEYS: keys ?? '',
    PAYLOAD_ENCRYPTION_KEYS_FILE: '',
  };
  const sandbox = await startSandbox({ allowPrivateUrls: true, ...sandboxOptions });
  const secret = `cb-secret-${randomBytes(16).toString('hex')}`;
  let receiverClient: ConnectedClient | undefined;
  let receiver: CallbackServer | undefined;
  try {
    // The receiver signals runs as src/callbacks/main.ts does: with the keys' data converter.
    receiverClient = await connectClient(temporalEnv);
    receiver = await startCallbackServer({ client: receiverClient.client, secret, host: '127.0.0.1', port: 0 });
    const worker = await startWorkerProcess({
      ...temporalEnv,
      // Blank is unset (src/config/env.ts): the worker's own default, whatever the test's environment holds.
      TEMPORAL_TASK_QUEUE: '',
      ...sandboxServiceEnv(sandbox),
      HTTP_TIMEOUT_MS: '5000',
      CALLBACK_PUBLIC_URL: receiver.url,
      CALLBACK_SECRET: secret,
    });
    const secrets = [sandbox.apiKey, sandbox.accessToken, secret];
    const openReceiver = receiver;
    const openReceiverClient = receiverClient;
    return {
      namespace,
      sandbox,
      worker,
      rawClient,
      callerEnv: { TEMPORAL_ADDRESS: temporalAddress(), TEMPORAL_NAMESPACE: namespace },
      async checkHistories(workflowIds) {
        const histories = await Promise.all(
          workflowIds.map(async (workflowId) => ({
            workflowId,
            history: await rawClient.workflow.getHandle(workflowId).fetchHistory(),
          })),
        );
        for (const { workflowId, history } of histories) {
          const text = JSON.stringify(history);
          const decoded = text.replace(/"data":"([A-Za-z0-9+/=]+)"/g, (_m, b64: string) =>
            Buffer.from(b64, 'base64').toString('utf8'),
          );
          for (const s of [...secrets, ...signedCallbackSecrets(sandbox)])
            if (text.includes(s) || decoded.includes(s)) throw new Error(`a secret appears in ${workflowId}`);
          if (containsSignedCallbackUrl(decoded)) throw new Error(`a signed callback URL appears in ${workflowId}`);
        }
        const dataConverter = keys ? dataConverterFromEnv({ PAYLOAD_ENCRYPTION_KEYS: keys }) : undefined;
        let replayed = 0;
        for await (const r of Worker.runReplayHistories(
          { workflowBundle: workflowBundle(), ...(dataConverter ? { dataConverter } : {}) },
          histories,
        )) {
          if (r.error) throw new Error(`replay of ${r.workflowId} failed: ${String(r.error)}`);
          replayed++;
        }
        return replayed;
      },
      async stop() {
        await worker.stop();
        await openReceiver.close();
        await openReceiverClient.close();
        await sandbox.close();
      },
    };
  } catch (err) {
    await receiver?.close();
    await receiverClient?.close();
    await sandbox.close();
    throw err;
  }
}
