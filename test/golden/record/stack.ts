// What `npm run record-golden` runs the paths on, outside vitest: its own Temporal dev server, the sandbox,
// the callback receiver and the clients as the tests' stacks have them (test/support/services-stack.ts),
// and in-process workers (callback address and a file store), all on free ports.
// Short timings keep each recorded history small.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, type WorkflowHandle } from '@temporalio/client';
import { bundleWorkflowCode, DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { createActivities } from '../../../src/activities/index.js';
import type { AdmissionSettings } from '../../../src/config/admission.js';
import { newNotifySecret } from '../../../src/index.js';
import { startDevServer } from '../../../src/dev/temporal-dev-server.js';
import { startWebhookReceiver, type Sandbox, type WebhookReceiver } from 'temporal-review-video-sandbox';
import { FileVideoStore } from '../../../src/store/file-store.js';
import { workflowBundleOptions } from '../../../src/bundle-workflows.js';
import { startServicesStack } from '../../support/services-stack.js';

export interface GoldenStack {
  client: Client;
  sandbox: Sandbox;
  /** Where jobs with `notify` are notified (signed with a key of this stack). */
  webhooks: WebhookReceiver;
  taskQueue: string;
  /** The version of the Temporal Server (the dev server) that ran the paths. */
  server: string;
  /** Strings that must never appear in a recorded history. */
  secrets: string[];
  stop(): Promise<void>;
}

/** Polls `check` every 100 ms until it holds (a run reached a stage, a request arrived). */
export async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 30_000) {
  for (const end = Date.now() + timeoutMs; !(await check());) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Waits until the run closes, however it ends: the recorder checks the ending against its path. */
export async function closed(handle: WorkflowHandle): Promise<WorkflowHandle> {
  await handle.result().catch(() => undefined);
  return handle;
}

/** The one model with a quota on the golden worker (2 tasks in flight): the other paths run as without one. */
export const GOLDEN_QUOTA_MODEL = 'golden-quota-model';
/** The task queue of the golden worker with a review quota of 1 task in flight. */
export const GOLDEN_REVIEW_QUOTA_QUEUE = 'golden-histories-review-quota';
/** The one tenant with a daily budget on the golden worker (1 task a day). */
export const GOLDEN_BUDGET_TENANT = 'golden-budget-tenant';

const quiet = { log() {}, info() {}, warn() {}, error() {}, debug() {}, trace() {} };

export async function startGoldenStack(): Promise<GoldenStack> {
  // The paths fail activities on purpose: only errors are worth printing.
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const server = await startDevServer();
  const client = new Client({ connection: server.env.connection, namespace: server.namespace });
  // Assembled as the tests assemble theirs (test/support/services-stack.ts); small video files.
  const services = await startServicesStack(client, { sandbox: { videoFileBytes: 64 * 1024 } });
  const { sandbox, receiver, secret, clients } = services;
  const webhooks = await startWebhookReceiver();
  const notifySecret = newNotifySecret();
  const storeDir = mkdtempSync(join(tmpdir(), 'rtg-golden-store-'));
  const taskQueue = 'golden-histories';
  // Bundled as the tests' run and our worker's image bundle it (src/bundle-workflows.ts, the plain variant).
  const workflowBundle = await bundleWorkflowCode({
    ...workflowBundleOptions({ traced: false, encrypted: false }),
    logger: quiet,
  });
  const workerOn = (queue: string, admission: AdmissionSettings) =>
    Worker.create({
      connection: server.env.nativeConnection,
      namespace: server.namespace,
      taskQueue: queue,
      workflowBundle,
      activities: createActivities({
        ...clients,
        callbacks: { publicUrl: receiver.url, secret },
        store: new FileVideoStore(storeDir),
        admission,
        notify: { secrets: [notifySecret], allowPrivateUrls: true },
      }),
    });
  const worker = await workerOn(taskQueue, {
    video: {
      key: 'video@golden',
      byModel: { [GOLDEN_QUOTA_MODEL]: 2 },
      budgets: { [GOLDEN_BUDGET_TENANT]: { tasks: 1 } },
    },
  });
  // A review quota applies to every job of its account: its paths run on a worker of their own.
  const reviewQuotaWorker = await workerOn(GOLDEN_REVIEW_QUOTA_QUEUE, {
    review: { key: 'review@golden', maxTasksInFlight: 1 },
  });
  const running = Promise.all([worker.run(), reviewQuotaWorker.run()]);
  return {
    client,
    sandbox,
    webhooks,
    taskQueue,
    server: (await client.workflowService.getSystemInfo({})).serverVersion || 'unknown',
    secrets: [sandbox.apiKey, sandbox.accessToken, secret, notifySecret],
    async stop() {
      worker.shutdown();
      reviewQuotaWorker.shutdown();
      await running;
      await webhooks.close();
      await services.close();
      await server.teardown();
      rmSync(storeDir, { recursive: true, force: true });
    },
  };
}

/** The run to record: a handle and, for one run of a continue-as-new chain, its run id. */
export interface RecordedRun {
  name: string;
  handle: WorkflowHandle;
  runId?: string;
}
