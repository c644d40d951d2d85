// Everything a benchmark run needs besides the load: the Temporal dev server, a client, the workflow bundle
// (built once), and per service profile a sandbox and a callback receiver (as every stack has them,
// test/support/services-stack.ts) plus one worker process.
import { randomUUID } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Client } from '@temporalio/client';
import { bundleWorkflowCode } from '@temporalio/worker';
import { otelWorkflowInterceptors } from '../../src/bundle-workflows.js';
import { freePort, startDevServer, type DevServer } from '../../src/dev/temporal-dev-server.js';
import type { Sandbox } from 'temporal-review-video-sandbox';
import { workflowPreloadModules } from '../../src/workflows-path.js';
import { startServicesStack } from '../../test/support/services-stack.js';
import type { Profile } from '../profiles.js';
import type { TunableWorkerOptions, WorkerObservability } from '../worker/protocol.js';
import { startOtlpSink, type OtlpSink } from './otlp-sink.js';
import { findDevServerPid } from './proc.js';
import { startWorkerProcess, type WorkerProcess } from './worker-process.js';

export const TMP_DIR = fileURLToPath(new URL('../results/tmp/', import.meta.url));
const here = (rel: string) => fileURLToPath(new URL(rel, import.meta.url));

/**
 * The workflow bundles a worker can run:
 * - package: the package's workflows (plus the trivial workflow) bundled as the package's worker does it,
 *   with `workflowPreloadModules`: our modules and zod evaluated once per worker thread;
 * - package-no-preload: the same without preloading, as a user's worker that only sets `workflowsPath`:
 *   the modules are evaluated again for every workflow run;
 * - package-otel: the package's, with the OpenTelemetry workflow interceptors, as a traced worker runs it;
 * - trivial: the trivial workflow alone (the server's limit, without our modules).
 */
export type BundleName = 'package' | 'package-no-preload' | 'package-otel' | 'trivial';

const BUNDLES: Record<
  BundleName,
  { workflowsPath: string; preloadModules?: string[]; workflowInterceptorModules?: string[] }
> = {
  package: { workflowsPath: here('../workflows/index.ts'), preloadModules: workflowPreloadModules },
  'package-otel': {
    workflowsPath: here('../workflows/index.ts'),
    preloadModules: workflowPreloadModules,
    workflowInterceptorModules: [otelWorkflowInterceptors],
  },
  'package-no-preload': { workflowsPath: here('../workflows/index.ts') },
  trivial: { workflowsPath: here('../workflows/trivial-only.ts') },
};
const silent = { log() {}, info() {}, warn() {}, error() {}, debug() {}, trace() {} };

export interface Harness {
  server: DevServer;
  serverPid: number | undefined;
  /** The dev server's Prometheus endpoint (its `action` counter cross-checks the actions per job). */
  metricsUrl: string;
  client: Client;
  /** Where traced workers export their spans. */
  otlp: OtlpSink;
  /** Builds (once) and returns the path of a workflow bundle. */
  bundle(name: BundleName): Promise<string>;
  stop(): Promise<void>;
}

export async function startHarness(): Promise<Harness> {
  mkdirSync(TMP_DIR, { recursive: true });
  const built = new Map<BundleName, Promise<string>>();
  const bundle = (name: BundleName) => {
    let path = built.get(name);
    if (!path) {
      path = bundleWorkflowCode({ ...BUNDLES[name], logger: silent }).then((b) => {
        const file = `${TMP_DIR}workflow-bundle-${process.pid}-${name}.js`;
        writeFileSync(file, b.code);
        return file;
      });
      built.set(name, path);
    }
    return path;
  };
  // Every bundle from the same snapshot of the sources, built before anything runs: the working tree
  // may change while a long benchmark runs.
  const metricsPort = await freePort();
  const [server] = await Promise.all([
    startDevServer({
      ui: false,
      extraArgs: [
        '--metrics-port',
        String(metricsPort),
        // Eager activity dispatch on (a server setting): an activity scheduled by a workflow task goes back
        // in the answer to the worker that completed it (the `no-eager` worker config measures without).
        '--dynamic-config-value',
        'system.enableActivityEagerExecution=true',
      ],
    }),
    ...(Object.keys(BUNDLES) as BundleName[]).map(bundle),
  ]);
  const client = new Client({ connection: server.env.connection, namespace: server.namespace });
  const otlp = await startOtlpSink();
  const port = Number(server.address.split(':').pop());
  return {
    server,
    serverPid: findDevServerPid(port),
    metricsUrl: `http://127.0.0.1:${metricsPort}/metrics`,
    client,
    otlp,
    bundle,
    async stop() {
      await otlp.close();
      await server.teardown();
      for (const file of built.values()) rmSync(await file, { force: true });
    },
  };
}

export interface ProfileEnv {
  profile: Profile;
  sandbox: Sandbox;
  worker: WorkerProcess;
  workerConfig: string;
  taskQueue: string;
  stop(): Promise<void>;
}

export interface WorkerConfigDef {
  options: TunableWorkerOptions;
  bundle: BundleName;
  /** Node flags of the worker process (e.g. its heap limit). */
  nodeArgs?: string[];
  /** Metrics and traces on (off when unset, as our worker's defaults). */
  observability?: Omit<WorkerObservability, 'otlpEndpoint'>;
}

/** A sandbox with the profile's latency, its receiver and one worker process (given options) on a fresh task queue. */
export async function startProfileEnv(
  h: Harness,
  profile: Profile,
  workerConfig: string,
  def: WorkerConfigDef,
  sandboxOverrides: { reviewDurationMs?: number; videoDurationMs?: number } = {},
): Promise<ProfileEnv> {
  // The receivers listen on loopback: the stack's sandbox allows private addresses.
  const services = await startServicesStack(h.client, {
    sandbox: {
      latencyMs: profile.latencyMs,
      reviewDurationMs: sandboxOverrides.reviewDurationMs ?? profile.reviewMs[0],
      videoDurationMs: sandboxOverrides.videoDurationMs ?? profile.videoMs[0],
      // Under load a signal may take a while: do not let the sandbox give up on a callback too early.
      callbackTimeoutMs: 15_000,
      // Every job's assets stay valid for the whole run.
      assetUrlTtlMs: 3_600_000,
    },
  });
  const { sandbox } = services;
  const taskQueue = `bench-${profile.name}-${workerConfig}-${randomUUID().slice(0, 8)}`;
  try {
    const worker = await startWorkerProcess({
      address: h.server.address,
      namespace: h.server.namespace,
      taskQueue,
      bundlePath: await h.bundle(def.bundle),
      video: { baseUrl: sandbox.videoBaseUrl, apiKey: sandbox.apiKey },
      review: { baseUrl: sandbox.reviewBaseUrl, accessToken: sandbox.accessToken },
      callbacks: { publicUrl: services.receiver.url, secret: services.secret },
      httpTimeoutMs: 30_000,
      options: def.options,
      nodeArgs: def.nodeArgs ?? [],
      sampleEveryMs: 100,
      ...(def.observability ? { observability: { ...def.observability, otlpEndpoint: h.otlp.endpoint } } : {}),
    });
    return {
      profile,
      sandbox,
      worker,
      workerConfig,
      taskQueue,
      async stop() {
        await worker.stop();
        await services.close();
      },
    };
  } catch (err) {
    await services.close();
    throw err;
  }
}
