// `npm run worker`: connects to Temporal, registers our workflows and activities on the task queue, and
// shuts down cleanly on SIGINT/SIGTERM. Exits non-zero with one line when the server cannot be reached.
import { Worker, type WorkerOptions } from '@temporalio/worker';
import { createActivities } from './activities/index.js';
import { loadCallbackConfig, loadServicesConfig, loadTemporalConfig, loadWorkerTuning, type CallbackConfig } from './config.js';
import { isMainModule } from './is-main.js';
import { ReviewClient } from './services/review/client.js';
import { VideoClient } from './services/video/client.js';
import { unreachableMessage } from './temporal-connection.js';
import { connectWorkerToTemporal } from './temporal-worker-connection.js';
import { workflowPreloadModules, workflowsPath } from './workflows-path.js';

/** The size of a fixed slot supplier (what WORKER_MAX_CONCURRENT_* set), for the startup line. */
function slots(supplier: unknown): string {
  return supplier && typeof supplier === 'object' && 'numSlots' in supplier ? String(supplier.numSlots) : 'resource-based';
}

export function callbackSettings(c: CallbackConfig) {
  return c.publicUrl && c.secret ? { publicUrl: c.publicUrl, secret: c.secret } : undefined;
}

/** The startup line that shows ALLOW_PRIVATE_URLS: a worker accepting private addresses says so. */
export function privateUrlsLine(allow: boolean): string {
  return allow
    ? 'worker: ALLOW_PRIVATE_URLS=true: loopback/private media and callback addresses accepted (sandbox/tests only)'
    : 'worker: ALLOW_PRIVATE_URLS=false: media and callback addresses must be public';
}

export async function runWorker(env: Record<string, string | undefined> = process.env, extra: Partial<WorkerOptions> = {}): Promise<void> {
  const temporal = loadTemporalConfig(env);
  const services = loadServicesConfig(env);
  const callbacks = loadCallbackConfig(env);
  const tuning = loadWorkerTuning(env);
  let connection;
  try {
    connection = await connectWorkerToTemporal(temporal);
  } catch (err) {
    throw new Error(unreachableMessage(temporal, err));
  }
  const video = new VideoClient(services.video);
  const review = new ReviewClient(services.review);
  try {
    const worker = await Worker.create({
      connection,
      namespace: temporal.namespace,
      taskQueue: temporal.taskQueue,
      workflowsPath,
      bundlerOptions: { preloadModules: workflowPreloadModules },
      activities: createActivities({ video, review, callbacks: callbackSettings(callbacks) }),
      shutdownGraceTime: '10s',
      ...tuning,
      ...extra,
    });
    // The SDK's runtime turns SIGINT/SIGTERM into a graceful shutdown of running workers.
    const running = worker.run();
    console.log(`worker: task queue ${temporal.taskQueue} on ${temporal.address} (namespace ${temporal.namespace}), callbacks ${callbacks.publicUrl ? 'on' : 'off (polling)'}`);
    console.log(privateUrlsLine(services.video.allowPrivateUrls === true));
    const { maxCachedWorkflows, tuner } = worker.options;
    console.log(`worker: sticky cache ${maxCachedWorkflows} workflows, ${slots(tuner.workflowTaskSlotSupplier)} workflow tasks and ${slots(tuner.activityTaskSlotSupplier)} activities at once`);
    await running;
    console.log('worker: stopped');
  } finally {
    await Promise.allSettled([video.close(), review.close(), connection.close()]);
  }
}

if (isMainModule(import.meta.url)) {
  // The SDK runtime turns these signals into a graceful shutdown, then stops listening; these no-op
  // listeners keep a loader (tsx) or Node's default from killing the process before the drain is done.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => undefined);
  runWorker().then(() => process.exit(0)).catch((err: unknown) => {
    console.error(`worker: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  });
}
