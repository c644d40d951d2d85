// The chart's environment against the configuration contract, as test/compose.test.ts holds compose to it:
// every variable of the README's configuration table reaches the processes that read it (and only those),
// each is set by the values, the chart or a Secret, every other variable the chart sets is documented, and
// what each container gets is accepted by the loaders of src/config/*.ts, with the values' settings.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { callbackConfigSchema, loadCallbackConfig } from '../../src/config/callbacks.js';
import {
  codecServerConfigSchema,
  encryptionConfigSchema,
  loadCodecServerConfig,
  loadEncryptionConfig,
} from '../../src/config/encryption.js';
import { loadServicesConfig, servicesConfigSchema } from '../../src/config/services.js';
import { loadTemporalConfig, temporalConfigSchema } from '../../src/config/temporal.js';
import { loadWorkerTuning, workerDeploymentSchema, workerTuningSchema } from '../../src/config/worker.js';
import { loadNotifyConfig, notifyConfigSchema } from '../../src/config/notify.js';
import { admissionConfigSchema, loadAdmissionConfig } from '../../src/config/admission.js';
import { loadDrainDelayMs, loadObservabilitySettings } from '../../src/observability/settings.js';
import { loadWorkerDeployment } from '../../src/temporal/worker-deployment.js';
import { workerCacheSize } from '../../src/config/worker-cache.js';
import { assertServiceSettings } from '../../src/worker.js';
import { objectKeys, readmeTableVariables, tableVariables } from '../support/config-table.js';
import {
  CHART,
  type K8sObject,
  SECRET_VALUES,
  VARIANTS,
  containerOf,
  envOf,
  locateHelm,
  maybe,
  one,
  podTemplateOf,
  render,
  root,
  valuesOf,
  workerPods,
} from './support.js';

const read = (rel: string) => readFileSync(path.join(root, rel), 'utf8');
const README = readmeTableVariables(read('README.md'));
// The worker's webhook settings, tabled in docs/webhooks.md ("also in the README's configuration table").
const WEBHOOKS = tableVariables(read('docs/webhooks.md'), 'Worker settings');
const notifyVars = objectKeys(notifyConfigSchema);
const temporalVars = objectKeys(temporalConfigSchema);
const serviceVars = objectKeys(servicesConfigSchema);
const workerVars = [...objectKeys(workerTuningSchema), ...objectKeys(workerDeploymentSchema)];
const callbackVars = objectKeys(callbackConfigSchema);
const encryptionVars = objectKeys(encryptionConfigSchema);
const codecServerVars = objectKeys(codecServerConfigSchema);

const rendered = new Map<string, K8sObject[]>();
beforeAll(async () => {
  await locateHelm();
  for (const v of VARIANTS) rendered.set(v.name, render(v));
}, 1_500_000);

type Envs = { worker: Record<string, string>; callbacks?: Record<string, string>; codec?: Record<string, string> };
/** Each process' environment in a variant (the worker's with what the Worker Controller injects). */
function envs(name: string): Envs {
  const objects = rendered.get(name)!;
  const callbacks = maybe(objects, 'Deployment', '-callbacks');
  const codec = maybe(objects, 'Deployment', '-codec');
  return {
    worker: envOf(containerOf(workerPods(objects).template, 'worker')),
    ...(callbacks ? { callbacks: envOf(containerOf(podTemplateOf(callbacks))) } : {}),
    ...(codec ? { codec: envOf(containerOf(podTemplateOf(codec))) } : {}),
  };
}

describe("the chart's environment and the README's configuration table", () => {
  it('sets every variable of the table somewhere: from the values (config), by the chart, or from a Secret', () => {
    const values = valuesOf(VARIANTS[0]!);
    const fromValues = Object.keys(values.config);
    const fromSecrets = Object.keys(values.secrets.keys).filter((v) => v !== 'TEMPORAL_API_KEY');
    // Set by the chart itself (from other values, or fixed) or by the Worker Controller.
    const byChart = [
      'TEMPORAL_ADDRESS',
      'TEMPORAL_NAMESPACE',
      'TEMPORAL_TASK_QUEUE',
      'WORKER_MEMORY_BUDGET_MIB',
      'TEMPORAL_DEPLOYMENT_NAME',
      'TEMPORAL_WORKER_BUILD_ID',
      'CALLBACK_HOST',
      'CALLBACK_PORT',
      'PAYLOAD_ENCRYPTION_KEYS_FILE',
      'CODEC_HOST',
      'CODEC_PORT',
    ];
    const settable = [...fromValues, ...fromSecrets, ...byChart];
    const documented = [...new Set([...README, ...WEBHOOKS])];
    expect(WEBHOOKS).toEqual(notifyVars);
    expect(documented.filter((v) => !settable.includes(v))).toEqual([]);
    // Nothing else: each key of `config` and of `secrets.keys` is a documented variable, set one way only.
    expect(settable.filter((v) => !documented.includes(v))).toEqual([]);
    expect(settable.length).toBe(new Set(settable).size);
    // And the rendered containers, across the switches, carry every one of them.
    const seen = new Set(
      [...rendered.keys()].flatMap((name) => Object.values(envs(name)).flatMap((e) => Object.keys(e))),
    );
    expect(documented.filter((v) => !seen.has(v))).toEqual([]);
  });

  it('gives each process the variables it reads, and the receiver none of the services’ credentials', () => {
    for (const name of rendered.keys()) {
      const e = envs(name);
      const values = valuesOf(VARIANTS.find((v) => v.name === name)!);
      const set = (v: string) => values.config[v] !== undefined && values.config[v] !== '';
      // A variable of `config` only when the values set it (else the README's default applies); the
      // versioning variables only under the Worker Controller; the rest always.
      const versioned = ['TEMPORAL_DEPLOYMENT_NAME', 'TEMPORAL_WORKER_BUILD_ID', 'TEMPORAL_VERSIONING_BEHAVIOR'];
      const expectedWorker = [...temporalVars, ...serviceVars, ...workerVars].filter((v) =>
        versioned.includes(v) ? values.workerController.enabled : !(v in values.config) || set(v),
      );
      for (const v of expectedWorker) expect(Object.keys(e.worker), `${name} worker ${v}`).toContain(v);
      if (values.callbacks.enabled) {
        for (const v of [
          'CALLBACK_SECRET',
          ...(set('CALLBACK_PUBLIC_URL') || values.callbacks.ingress.enabled ? ['CALLBACK_PUBLIC_URL'] : []),
        ])
          expect(Object.keys(e.worker), `${name} worker ${v}`).toContain(v);
        for (const v of [
          ...temporalVars,
          ...callbackVars.filter((c) => c !== 'CALLBACK_PUBLIC_URL'),
          'CALLBACK_DRAIN_DELAY_MS',
        ])
          expect(Object.keys(e.callbacks!), `${name} callbacks ${v}`).toContain(v);
        for (const v of [
          ...serviceVars,
          ...workerVars,
          ...codecServerVars,
          ...notifyVars,
          ...objectKeys(admissionConfigSchema),
          'VIDEO_STORE',
        ])
          expect(Object.keys(e.callbacks!), `${name}: the receiver must not get ${v}`).not.toContain(v);
      } else {
        // Polling only: the worker gives the services no callback address.
        expect(
          Object.keys(e.worker).filter((v) => v.startsWith('CALLBACK_')),
          name,
        ).toEqual([]);
        expect(e.callbacks).toBeUndefined();
      }
      if (e.codec) {
        for (const v of ['CODEC_HOST', 'CODEC_PORT']) expect(Object.keys(e.codec)).toContain(v);
        for (const v of [...temporalVars, ...serviceVars, ...callbackVars, ...notifyVars])
          expect(Object.keys(e.codec), `${name}: the codec server must not get ${v}`).not.toContain(v);
      }
      // Encryption: the same keys, the same way, for every process that has them.
      const withKeys = Object.values(e).map((env) => encryptionVars.filter((v) => v in env));
      expect(new Set(withKeys.map((k) => k.join())).size, `${name}: one encryption setting for all`).toBe(1);
    }
  });

  it('sets no variable that is not documented: the tables, or named in README.md or docs/operations.md', () => {
    const docs = `${read('README.md')}\n${read('docs/operations.md')}`;
    const extra = new Set<string>();
    for (const name of rendered.keys()) {
      const values = valuesOf(VARIANTS.find((v) => v.name === name)!);
      const fromValues = new Set(
        ['worker', 'callbacks', 'codecServer'].flatMap((p) =>
          (values[p].extraEnv ?? []).map((x: { name: string }) => x.name),
        ),
      );
      for (const env of Object.values(envs(name)))
        for (const v of Object.keys(env))
          if (!README.includes(v) && !WEBHOOKS.includes(v) && !fromValues.has(v)) extra.add(v);
    }
    const job = [...rendered.values()].flatMap((objects) =>
      maybe(objects, 'Job') ? [envOf(containerOf(podTemplateOf(one(objects, 'Job'))))] : [],
    );
    for (const env of job) for (const v of Object.keys(env)) if (!README.includes(v) && v !== 'HOME') extra.add(v);
    expect([...extra].sort()).toEqual(
      [
        'CALLBACK_DRAIN_DELAY_MS',
        'LOG_FORMAT',
        'LOG_LEVEL',
        'PROMETHEUS_BIND_ADDRESS',
        'TEMPORAL_API_KEY',
        'TEMPORAL_TLS',
        'TEMPORAL_TLS_CLIENT_CERT_PATH',
        'TEMPORAL_TLS_CLIENT_KEY_PATH',
        'TEMPORAL_TLS_SERVER_CA_CERT_PATH',
        'TEMPORAL_TLS_SERVER_NAME',
      ].sort(),
    );
    // The TLS variables are envconfig's (the README's TEMPORAL_ADDRESS row names `TEMPORAL_TLS_*`).
    for (const v of extra)
      expect(docs.includes(v) || (v.startsWith('TEMPORAL_TLS') && docs.includes('TEMPORAL_TLS_*')), v).toBe(true);
  });
});

describe('what the processes make of it (src/config/*.ts)', () => {
  it('starts the worker with the values’ settings and the design defaults', () => {
    for (const name of rendered.keys()) {
      const { worker } = envs(name);
      const values = valuesOf(VARIANTS.find((v) => v.name === name)!);
      expect(loadTemporalConfig(worker), name).toMatchObject({
        namespace: values.temporal.namespace,
        taskQueue: values.temporal.taskQueue,
        address: values.temporal.address,
      });
      expect(loadObservabilitySettings(worker, false)).toEqual({
        logLevel: 'info',
        logFormat: 'json',
        prometheusBindAddress: '0.0.0.0:9464',
      });
      expect(workerCacheSize(worker).from, name).toBe(
        values.config.WORKER_MAX_CACHED_WORKFLOWS ? 'WORKER_MAX_CACHED_WORKFLOWS' : 'WORKER_MEMORY_BUDGET_MIB',
      );
      expect(loadEncryptionConfig(worker)).toEqual(
        values.encryption.enabled
          ? values.encryption.source === 'file'
            ? { keys: undefined, keysFile: '/etc/review-video/encryption/keys' }
            : { keys: SECRET_VALUES.PAYLOAD_ENCRYPTION_KEYS, keysFile: undefined }
          : { keys: undefined, keysFile: undefined },
      );
      if (name === 'default') {
        // No services configured: the worker stops at start naming them, as in compose.
        expect(() => assertServiceSettings(worker)).toThrow(
          /missing service settings: VIDEO_API_BASE_URL, REVIEW_API_BASE_URL/,
        );
        continue;
      }
      assertServiceSettings(worker);
      const services = loadServicesConfig(worker);
      expect(services.video).toMatchObject({
        baseUrl: 'https://video.example.com',
        apiKey: SECRET_VALUES.VIDEO_API_KEY,
        allowPrivateUrls: false,
      });
      expect(services.review).toMatchObject({
        baseUrl: 'https://identity.example.com',
        accessToken: SECRET_VALUES.REVIEW_ACCESS_TOKEN,
      });
      if (values.callbacks.enabled) expect(loadCallbackConfig(worker).secret).toEqual([SECRET_VALUES.CALLBACK_SECRET]);
    }
    // The production values' settings reach the clients and Worker.create.
    const { worker } = envs('production');
    expect(loadServicesConfig(worker).video).toMatchObject({
      cancelMethod: 'DELETE',
      timeoutMs: 15_000,
      connections: 64,
    });
    expect(loadWorkerTuning(worker)).toEqual({ maxConcurrentActivityTaskExecutions: 200 });
    expect(worker.VIDEO_STORE).toBe('s3://videos/review-video');
    expect(loadTemporalConfig(worker).address).toBe('my-namespace.a1b2c.tmprl.cloud:7233');
    expect(worker.TEMPORAL_API_KEY).toBe(SECRET_VALUES.TEMPORAL_API_KEY);
    // Webhooks: the default receiver, its window, and the signing keys from the Secret.
    expect(loadNotifyConfig(worker)).toMatchObject({
      url: 'https://hooks.example.com/review-video',
      secrets: [SECRET_VALUES.NOTIFY_SECRET],
      windowMs: 3_600_000,
    });
    expect(loadNotifyConfig(envs('default').worker)).toMatchObject({ url: undefined, secrets: undefined });
    // The provider quota shared by every worker of the account.
    const bases = { video: 'https://video.example.com', review: 'https://review.example.com' };
    expect(loadAdmissionConfig(worker, bases)).toEqual({
      video: {
        key: 'video@prod-account',
        maxTasksInFlight: 20,
        byModel: { 'model-a': 5, 'model-b': 2 },
        maxCreatesPerMinute: 30,
        leaseMs: 900_000,
        tenantWeights: { enterprise: 4, free: 0.5 },
        budgets: { free: { tasks: 100, seconds: 600 }, enterprise: { seconds: 36_000 } },
      },
      review: {
        key: 'review@prod-review-account',
        maxTasksInFlight: 8,
        maxSubmitsPerMinute: 60,
        leaseMs: 900_000,
        tenantWeights: { enterprise: 4, free: 0.5 },
      },
    });
    expect(loadAdmissionConfig(envs('default').worker, bases)).toEqual({});
    const pinned = envs('worker-controller-mtls').worker;
    expect(loadServicesConfig(pinned).video.cancelPath).toBe('/v2/tasks/{id}/cancel');
    expect(loadWorkerTuning(pinned)).toEqual({ maxCachedWorkflows: 1000, maxConcurrentWorkflowTaskExecutions: 100 });
  });

  it('makes the worker one pinned version under the Worker Controller, and unversioned otherwise', () => {
    for (const name of rendered.keys()) {
      const { worker } = envs(name);
      const deployment = loadWorkerDeployment(worker);
      const values = valuesOf(VARIANTS.find((v) => v.name === name)!);
      if (!values.workerController.enabled) {
        expect(deployment, name).toBeUndefined();
        continue;
      }
      expect(deployment, name).toEqual({
        deploymentName: `video/rv-review-video-worker`,
        buildId: 'build-1',
        defaultVersioningBehavior: values.config.TEMPORAL_VERSIONING_BEHAVIOR || 'PINNED',
      });
    }
  });

  it('starts the receiver on all interfaces of its port, draining on SIGTERM, at the public address', () => {
    for (const name of rendered.keys()) {
      const { callbacks, worker } = envs(name);
      if (!callbacks) continue;
      const config = loadCallbackConfig(callbacks);
      expect(config, name).toMatchObject({ host: '0.0.0.0', port: 8787, secret: [SECRET_VALUES.CALLBACK_SECRET] });
      expect(config.publicUrl).toBe(loadCallbackConfig(worker).publicUrl);
      expect(loadDrainDelayMs(callbacks)).toBe(5000);
      expect(loadTemporalConfig(callbacks)).toEqual(loadTemporalConfig(worker));
    }
    expect(loadCallbackConfig(envs('production').callbacks!).publicUrl).toBe('https://callbacks.example.com');
    expect(loadCallbackConfig(envs('default').callbacks!).publicUrl).toBeUndefined();
  });

  it('starts the codec server with the Web UI’s origins, its token and the keys', () => {
    const { codec } = envs('production');
    expect(loadCodecServerConfig(codec!)).toEqual({
      host: '0.0.0.0',
      port: 8888,
      corsOrigins: ['https://cloud.temporal.io'],
      authToken: SECRET_VALUES.CODEC_AUTH_TOKEN,
    });
    expect(loadEncryptionConfig(codec!).keys).toBe(SECRET_VALUES.PAYLOAD_ENCRYPTION_KEYS);
  });

  it('documents the chart where the table is (docs/operations.md links it)', () => {
    const ops = read('docs/operations.md');
    expect(ops).toMatch(/^## Kubernetes \(Helm\)$/m);
    expect(ops).toContain(path.relative(path.join(root, 'docs'), CHART));
  });
});
