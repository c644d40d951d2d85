// `npm run worker`: connects to Temporal, registers our workflows and activities on the task queue through
// the plugin users put in their own workers (same settings factory, same wiring), and shuts down cleanly
// on SIGINT/SIGTERM. Exits non-zero with one line when a setting is invalid or the server can't be reached.
import { Worker, type WorkerOptions } from '@temporalio/worker';
import { activitySettingsFromEnv } from './activities/index.js';
import { loadTemporalConfig, loadWorkerTuning } from './config.js';
import { isMainModule } from './is-main.js';
import { ReviewVideoPlugin } from './plugin.js';
import { unreachableMessage } from './temporal/client-connection.js';
import { connectWorkerToTemporal } from './temporal/worker-connection.js';

/** The size of a fixed slot supplier (what WORKER_MAX_CONCURRENT_* set), for the startup line. */
function slots(supplier: unknown): string {
  return supplier && typeof supplier === 'object' && 'numSlots' in supplier
    ? String(supplier.numSlots)
    : 'resource-based';
}

/** The startup line that shows ALLOW_PRIVATE_URLS: a worker accepting private addresses says so. */
export function privateUrlsLine(allow: boolean): string {
  return allow
    ? 'worker: ALLOW_PRIVATE_URLS=true: loopback/private media and callback addresses accepted (sandbox/tests only)'
    : 'worker: ALLOW_PRIVATE_URLS=false: media and callback addresses must be public';
}

export async function runWorker(
  env: Record<string, string | undefined> = process.env,
  extra: Partial<WorkerOptions> = {},
): Promise<void> {
  // Every variable is checked before connecting: a bad one is named even when Temporal is down.
  const temporal = loadTemporalConfig(env);
  const settings = activitySettingsFromEnv(env);
  const tuning = loadWorkerTuning(env);
  let connection;
  try {
    connection = await connectWorkerToTemporal(temporal);
  } catch (err) {
    throw new Error(unreachableMessage(temporal, err), { cause: err });
  }
  const plugin = new ReviewVideoPlugin(settings);
  try {
    const worker = await Worker.create({
      connection,
      namespace: temporal.namespace,
      taskQueue: temporal.taskQueue,
      shutdownGraceTime: '10s',
      ...tuning,
      ...extra,
      plugins: [plugin, ...(extra.plugins ?? [])],
    });
    // The SDK's runtime turns SIGINT/SIGTERM into a graceful shutdown of running workers.
    const running = worker.run();
    console.log(
      `worker: task queue ${temporal.taskQueue} on ${temporal.address} (namespace ${temporal.namespace}), callbacks ${settings.callbacks ? 'on' : 'off (polling)'}`,
    );
    console.log(privateUrlsLine(settings.services.video.allowPrivateUrls === true));
    const { maxCachedWorkflows, tuner } = worker.options;
    console.log(
      `worker: sticky cache ${maxCachedWorkflows} workflows, ${slots(tuner.workflowTaskSlotSupplier)} workflow tasks and ${slots(tuner.activityTaskSlotSupplier)} activities at once`,
    );
    await running;
    console.log('worker: stopped');
  } finally {
    // The plugin closed the clients of a worker that ran; this covers a Worker.create that failed.
    await Promise.allSettled([plugin.close(), connection.close()]);
  }
}

if (isMainModule(import.meta.url)) {
  // The SDK runtime turns these signals into a graceful shutdown, then stops listening; these no-op
  // listeners keep a loader (tsx) or Node's default from killing the process before the drain is done.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => undefined);
  runWorker()
    .then(() => process.exit(0))
    .catch((err: unknown) => {
      console.error(`worker: ${err instanceof Error ? err.message : String(err)}`);
      process.exit(1);
    });
}
