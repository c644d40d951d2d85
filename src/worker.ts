// `npm run worker`: connects to Temporal, registers our workflows and activities on the task queue through
// the plugin users put in their own workers (same settings factory, same wiring), and shuts down cleanly
// on SIGINT/SIGTERM. Exits non-zero with one line when a setting is invalid or the server can't be reached.
// Logs are JSON lines (or pretty on a terminal) through the SDK's Runtime logger; with
// PROMETHEUS_BIND_ADDRESS set, that address serves /metrics (the SDK's and ours), /healthz and /readyz.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Logger } from '@temporalio/common';
import { Worker, type NativeConnection, type WorkerOptions } from '@temporalio/worker';
import { activitySettingsFromEnv } from './activities/index.js';
import { dataConverterFromEnv, describeEncryption } from './codec/data-converter.js';
import type { AdmissionSettings } from './config/admission.js';
import { parse } from './config/env.js';
import { loadTemporalConfig } from './config/temporal.js';
import { loadWorkerTuning, workflowBundleSchema } from './config/worker.js';
import { isMainModule } from './is-main.js';
import { createLogger } from './observability/logger.js';
import { serviceRequestMetrics } from './observability/metrics.js';
import { cachedCheck, startOpsServer } from './observability/ops-endpoint.js';
import { installObservability, type Observability } from './observability/runtime.js';
import { loadObservabilitySettings } from './observability/settings.js';
import { startTracing } from './observability/tracing.js';
import { ReviewVideoPlugin } from './plugin.js';
import { observeServiceRequests } from './services/http.js';
import { unreachableMessage } from './temporal/client-connection.js';
import { applyTenantWeights } from './temporal/fairness-weights.js';
import { connectWorkerToTemporal } from './temporal/worker-connection.js';
import {
  describeWorkerDeployment,
  loadWorkerDeployment,
  workerDeploymentOptions,
} from './temporal/worker-deployment.js';
import { workerCacheSize } from './config/worker-cache.js';

/** The size of a fixed slot supplier (what WORKER_MAX_CONCURRENT_* set), for the startup line. */
function slots(supplier: unknown): number | string {
  return supplier && typeof supplier === 'object' && 'numSlots' in supplier && typeof supplier.numSlots === 'number'
    ? supplier.numSlots
    : 'resource-based';
}

/** The startup line that shows ALLOW_PRIVATE_URLS: a worker accepting private addresses says so. */
export function privateUrlsLine(allow: boolean): string {
  return allow
    ? 'worker: ALLOW_PRIVATE_URLS=true: loopback/private media and callback addresses accepted (sandbox/tests only)'
    : 'worker: ALLOW_PRIVATE_URLS=false: media and callback addresses must be public';
}

/**
 * The workflow bundle made at image build time (dist/bundle-workflows.js → dist/workflow-bundle.js) when
 * this worker runs from dist/ and the file is there, or WORKFLOW_BUNDLE_PATH; else webpack runs at start.
 */
export function prebuiltBundle(
  env: Record<string, string | undefined>,
  traced = false,
  encrypted = false,
): Pick<WorkerOptions, 'workflowBundle'> {
  // Traced: the OpenTelemetry workflow interceptors compiled in; encrypted: the failure converter that
  // encrypts failure messages (bundle-workflows.ts). Without its variant, an encrypting worker bundles at
  // start rather than write workflow failure messages in plain text, and a traced one rather than run
  // workflows without their spans.
  const variant = (file: string) =>
    `${file.replace(/\.js$/, '')}${traced ? '.otel' : ''}${encrypted ? '.encrypted' : ''}.js`;
  const given = parse(workflowBundleSchema, env).WORKFLOW_BUNDLE_PATH;
  if (given) {
    if (existsSync(variant(given))) return { workflowBundle: { codePath: variant(given) } };
    return encrypted || traced ? {} : { workflowBundle: { codePath: given } };
  }
  const beside = variant(fileURLToPath(new URL('./workflow-bundle.js', import.meta.url)));
  return import.meta.url.endsWith('.js') && existsSync(beside) ? { workflowBundle: { codePath: beside } } : {};
}

const SERVICE_VARIABLES = ['VIDEO_API_BASE_URL', 'VIDEO_API_KEY', 'REVIEW_API_BASE_URL', 'REVIEW_ACCESS_TOKEN'];

/** No silent fallback: a worker without its two services' settings says which are missing and stops. */
export function assertServiceSettings(env: Record<string, string | undefined>): void {
  const missing = SERVICE_VARIABLES.filter((v) => !env[v]);
  if (missing.length > 0)
    throw new Error(
      `missing service settings: ${missing.join(', ')}. Set them to the video and review services ` +
        '(or to the sandbox: docker compose --env-file .env --env-file deploy/sandbox.env --profile sandbox up)',
    );
}

export async function runWorker(
  env: Record<string, string | undefined> = process.env,
  extra: Partial<WorkerOptions> = {},
  observability?: Pick<Observability, 'logger' | 'meter' | 'metricsUrl'> & { bindAddress?: string | undefined },
): Promise<void> {
  const startedAt = performance.now();
  // Every variable is checked before connecting: a bad one is named even when Temporal is down.
  const temporal = loadTemporalConfig(env);
  assertServiceSettings(env);
  const settings = activitySettingsFromEnv(env);
  const tuning = loadWorkerTuning(env);
  // The sticky cache fits WORKER_MEMORY_BUDGET_MIB unless WORKER_MAX_CACHED_WORKFLOWS is set (worker-cache.ts).
  const cache = workerCacheSize(env);
  const deployment = loadWorkerDeployment(env);
  // Payload encryption (docs/encryption.md): undefined when PAYLOAD_ENCRYPTION_KEYS(_FILE) is unset.
  const encryption = dataConverterFromEnv(env);
  const workflowCode = prebuiltBundle(
    env,
    extra.plugins?.some((p) => p.name === 'OpenTelemetryPlugin'),
    encryption !== undefined,
  );
  // Without installObservability (a caller that installed its own Runtime), the startup events still
  // reach stdout at LOG_LEVEL, whatever level that Runtime's logger keeps.
  const log: Logger = observability?.logger ?? loggerFromEnv(env);
  let connection;
  try {
    connection = await connectWorkerToTemporal(temporal);
  } catch (err) {
    throw new Error(unreachableMessage(temporal, err), { cause: err });
  }
  const stopObserving = observability
    ? observeServiceRequests(serviceRequestMetrics(observability.meter).observe)
    : () => undefined;
  // `{}`: this worker's env decides, not process.env (the plugin's own default).
  const plugin = new ReviewVideoPlugin({ ...settings, dataConverter: encryption ?? {} });
  try {
    const worker = await Worker.create({
      connection,
      namespace: temporal.namespace,
      taskQueue: temporal.taskQueue,
      shutdownGraceTime: '10s',
      ...workflowCode,
      ...tuning,
      maxCachedWorkflows: cache.maxCachedWorkflows,
      ...workerDeploymentOptions(deployment),
      ...extra,
      plugins: [plugin, ...(extra.plugins ?? [])],
    });
    // The SDK's runtime turns SIGINT/SIGTERM into a graceful shutdown of running workers.
    const running = worker.run();
    await shareTenantWeights(connection, temporal, settings.admission, log);
    const conn = connection;
    const temporalUp = cachedCheck(async () => void (await conn.healthService.check({})));
    if (observability?.bindAddress) {
      const ops = await startOpsServer(observability.bindAddress, {
        metricsUrl: observability.metricsUrl,
        ready: async () => {
          const s = worker.getStatus();
          if (s.runState !== 'RUNNING') return `worker ${s.runState.toLowerCase()}`;
          if (s.workflowPollerState !== 'POLLING' || s.activityPollerState !== 'POLLING') return 'pollers not polling';
          return (await temporalUp()) ? undefined : 'Temporal unreachable';
        },
      });
      void running.finally(() => ops.server.close());
      log.info('worker: metrics and health endpoint', { url: ops.url, paths: ['/metrics', '/healthz', '/readyz'] });
    }
    log.info(`worker: task queue ${temporal.taskQueue} on ${temporal.address} (namespace ${temporal.namespace})`, {
      taskQueue: temporal.taskQueue,
      address: temporal.address,
      namespace: temporal.namespace,
      callbacks: settings.callbacks ? 'on' : 'off (polling)',
      workflowCode: worker.options.workflowBundle ? 'prebuilt bundle' : 'bundled at start',
      tracing: extra.plugins?.some((p) => p.name === 'OpenTelemetryPlugin') ? 'on' : 'off',
      versioning: describeWorkerDeployment(deployment),
      encryption: describeEncryption(encryption),
      readyAfterMs: Math.round(performance.now() - startedAt),
    });
    const allowPrivate = settings.services.video.allowPrivateUrls === true;
    log.log(allowPrivate ? 'WARN' : 'INFO', privateUrlsLine(allowPrivate), { allowPrivateUrls: allowPrivate });
    const { maxCachedWorkflows, tuner } = worker.options;
    const workflowTasks = slots(tuner.workflowTaskSlotSupplier);
    const activities = slots(tuner.activityTaskSlotSupplier);
    log.info(
      `worker: sticky cache ${maxCachedWorkflows} workflows, ${workflowTasks} workflow tasks and ${activities} activities at once`,
      { maxCachedWorkflows, cacheSizedBy: cache.from, memoryBudgetMiB: cache.budgetMiB, workflowTasks, activities },
    );
    await running;
    log.info('worker: stopped');
  } finally {
    stopObserving();
    // The plugin closed the clients of a worker that ran; this covers a Worker.create that failed.
    await Promise.allSettled([plugin.close(), connection.close()]);
  }
}

/** ADMISSION_TENANT_WEIGHTS for Temporal's fairness too; a server that refuses them only loses that (a warning). */
async function shareTenantWeights(
  connection: NativeConnection,
  target: { namespace: string; taskQueue: string },
  admission: AdmissionSettings | undefined,
  log: Logger,
): Promise<void> {
  const weights = admission?.video?.tenantWeights ?? admission?.review?.tenantWeights;
  if (!weights) return;
  try {
    await applyTenantWeights(connection, target, weights);
    log.info('worker: tenant weights set on the task queue (Temporal fairness)', { tenants: Object.keys(weights) });
  } catch (err) {
    log.warn('worker: the server refused the tenant weights (task-queue fairness); the quota gates still use them', {
      error: err instanceof Error ? err.message : String(err),
    });
  }
}

function loggerFromEnv(env: Record<string, string | undefined>): Logger {
  const { logLevel, logFormat } = loadObservabilitySettings(env);
  return createLogger({ level: logLevel, format: logFormat, component: 'worker' });
}

async function main(): Promise<void> {
  const obs = loadObservabilitySettings();
  const bindAddress = obs.prometheusBindAddress;
  const installed = await installObservability('worker', obs, { metrics: bindAddress !== undefined });
  const tracing = startTracing('review-video-worker');
  const stopTracing = tracing ? observeServiceRequests(tracing.httpSpans) : () => undefined;
  try {
    await runWorker(process.env, tracing ? { plugins: [tracing.plugin] } : {}, { ...installed, bindAddress });
  } finally {
    stopTracing();
    await tracing?.shutdown();
  }
}

if (isMainModule(import.meta.url)) {
  // The SDK runtime turns these signals into a graceful shutdown, then stops listening; these no-op
  // listeners keep a loader (tsx) or Node's default from killing the process before the drain is done.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => undefined);
  main()
    .then(() => process.exit(0))
    .catch((err: unknown) => {
      // The one line on stderr that says why the worker did not start (before or without the logger).
      process.stderr.write(`worker: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    });
}
