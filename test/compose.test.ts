// The production-like stack (docker-compose.yml + Dockerfile), checked without a Docker engine: the YAML is
// parsed and held against the design (configuration table), src/config/ (the variables the code reads)
// and src/contract/search-attributes.ts (what the workflows upsert). When the docker compose plugin is
// installed, `docker compose config -q` validates the file too (it needs no daemon).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { callbackConfigSchema, loadCallbackConfig } from '../src/config/callbacks.js';
import { loadNotifyConfig, notifyConfigSchema } from '../src/config/notify.js';
import { admissionConfigSchema } from '../src/config/admission.js';
import { loadServicesConfig, servicesConfigSchema } from '../src/config/services.js';
import { loadTemporalConfig, temporalConfigSchema } from '../src/config/temporal.js';
import { loadWorkerTuning, workerDeploymentSchema, workerTuningSchema } from '../src/config/worker.js';
import {
  codecServerConfigSchema,
  encryptionConfigSchema,
  loadCodecServerConfig,
  loadEncryptionConfig,
} from '../src/config/encryption.js';
import { METRIC_NAMES } from '../src/observability/metrics.js';
import { assertServiceSettings } from '../src/worker.js';
import { contractSearchAttributes, registeredSearchAttributes } from './support/search-attribute-script.js';
import { objectKeys, readmeTableVariables } from './support/config-table.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const read = (rel: string) => readFileSync(path.join(root, rel), 'utf8');

type Healthcheck = { test?: string | string[]; disable?: boolean };
type Service = {
  image?: string;
  build?: string | { context?: string; dockerfile?: string };
  command?: string | string[];
  entrypoint?: string | string[];
  environment?: Record<string, string | number | boolean | null> | string[];
  ports?: (string | number | { target: number; published?: string | number; host_ip?: string })[];
  depends_on?: string[] | Record<string, { condition?: string }>;
  healthcheck?: Healthcheck;
  profiles?: string[];
  restart?: string;
  volumes?: unknown[];
  stop_grace_period?: string;
};

const composeText = read('docker-compose.yml');
// `merge: true`: the file shares environment blocks with YAML merge keys (`<<: *anchor`), as compose does.
const compose = parse(composeText, { merge: true }) as { services: Record<string, Service>; volumes?: object };
const services = compose.services;
const svc = (name: string): Service => {
  const s = services[name];
  if (!s) throw new Error(`docker-compose.yml has no service ${name}`);
  return s;
};

function envOf(s: Service): Record<string, string> {
  const env = s.environment ?? {};
  if (Array.isArray(env)) {
    return Object.fromEntries(
      env.map((kv) => {
        const i = kv.indexOf('=');
        return i < 0 ? [kv, ''] : [kv.slice(0, i), kv.slice(i + 1)];
      }),
    );
  }
  return Object.fromEntries(Object.entries(env).map(([k, v]) => [k, v == null ? '' : String(v)]));
}

/** Published ports as `published -> target` (short or long syntax), with the host address if any. */
function portsOf(s: Service): { hostIp: string | undefined; published: number; target: number }[] {
  return (s.ports ?? []).map((p) => {
    if (typeof p === 'object') {
      return { hostIp: p.host_ip, published: Number(p.published ?? p.target), target: Number(p.target) };
    }
    const parts = String(p).split('/')[0]!.split(':');
    const target = Number(parts.at(-1));
    const published = parts.length >= 2 ? Number(parts.at(-2)) : target;
    const hostIp = parts.length === 3 ? parts[0] : undefined;
    return { hostIp, published, target };
  });
}

function dependsOn(s: Service): Record<string, string | undefined> {
  const d = s.depends_on ?? {};
  if (Array.isArray(d)) return Object.fromEntries(d.map((n) => [n, undefined]));
  return Object.fromEntries(Object.entries(d).map(([n, v]) => [n, v?.condition]));
}

const commandOf = (s: Service) => (Array.isArray(s.command) ? s.command.join(' ') : (s.command ?? ''));

/**
 * Compose's variable interpolation for the forms this file uses: `${VAR}`, `${VAR:-default}`,
 * `${VAR-default}`, `${VAR:?message}`, `${VAR?message}`, and `$$` for a literal `$`.
 */
function interpolate(value: string, vars: Record<string, string | undefined>): string {
  return value.replace(/\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?)([-?])([^}]*))?\}/g, (all, name, colon, op, arg) => {
    if (all === '$$') return '$';
    const v = vars[name as string];
    const unset = v === undefined || (colon === ':' && v === '');
    if (!op) return v ?? '';
    if (op === '-') return unset ? (arg as string) : v!;
    if (unset) throw new Error(`required variable ${name as string} is missing a value: ${arg as string}`);
    return v!;
  });
}

const interpolatedEnv = (s: Service, vars: Record<string, string | undefined>) =>
  Object.fromEntries(Object.entries(envOf(s)).map(([k, v]) => [k, interpolate(v, vars)]));

// What a user supplies at least (.env): the two required secrets. Test-only values.
const REQUIRED_SECRETS = {
  POSTGRES_PASSWORD: 'compose-test-only',
  CALLBACK_SECRET: 'compose-test-only-0123456789',
  GRAFANA_ADMIN_PASSWORD: 'compose-test-only',
};

/** deploy/sandbox.env as variables (what `--env-file deploy/sandbox.env` adds). */
function sandboxEnvFile(): Record<string, string> {
  return Object.fromEntries(
    read('deploy/sandbox.env')
      .split('\n')
      .filter((l) => /^[A-Z_]+=/.test(l))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
}

/** `30s`, `1m30s`, `500ms` as milliseconds. */
function durationMs(d: string): number {
  let ms = 0;
  for (const m of d.matchAll(/(\d+)(ms|s|m|h)/g)) ms += Number(m[1]) * { ms: 1, s: 1e3, m: 6e4, h: 3.6e6 }[m[2]!]!;
  return ms;
}

// The SDK's metrics (Core's Prometheus exporter, as the worker exports them: seconds, `_total` on counters)
// that the dashboard may use: what test/observability/metrics.test.ts scrapes, plus failure counters that
// appear at the first failure.
const SDK_METRICS = [
  'temporal_workflow_completed_total',
  'temporal_workflow_failed_total',
  'temporal_workflow_canceled_total',
  'temporal_activity_execution_latency_seconds',
  'temporal_activity_execution_failed_total',
  'temporal_activity_schedule_to_start_latency_seconds',
  'temporal_workflow_task_schedule_to_start_latency_seconds',
  'temporal_worker_task_slots_used',
  'temporal_worker_task_slots_available',
];

const temporalVars = objectKeys(temporalConfigSchema);
const serviceVars = objectKeys(servicesConfigSchema);
// Worker-only settings: sizing, and Worker Deployment versioning.
const workerVars = [...objectKeys(workerTuningSchema), ...objectKeys(workerDeploymentSchema)];
const callbackVars = objectKeys(callbackConfigSchema);
// The worker's webhook settings (docs/webhooks.md).
const notifyVars = objectKeys(notifyConfigSchema);
// The provider quotas (docs/operations.md, "Provider quotas").
const admissionVars = objectKeys(admissionConfigSchema);
// Payload encryption (worker, receiver and codec server), and the codec server's own settings.
const encryptionVars = objectKeys(encryptionConfigSchema);
const codecServerVars = objectKeys(codecServerConfigSchema);

// The variables of the configuration table of the design (the project's contract, also the README's
// configuration table), in its order, plus the ones this project added (HTTP_MAX_CONNECTIONS, WORKER_*,
// TEMPORAL_DEPLOYMENT_NAME and the other versioning variables).
// The project reads nothing outside itself, so the list lives here.
const DESIGN_VARIABLES = [
  'TEMPORAL_ADDRESS',
  'TEMPORAL_NAMESPACE',
  'TEMPORAL_TASK_QUEUE',
  'VIDEO_API_BASE_URL',
  'VIDEO_API_KEY',
  'REVIEW_API_BASE_URL',
  'REVIEW_ACCESS_TOKEN',
  'VIDEO_CANCEL_METHOD',
  'VIDEO_CANCEL_PATH',
  'HTTP_TIMEOUT_MS',
  'HTTP_MAX_CONNECTIONS',
  'WORKER_MAX_CACHED_WORKFLOWS',
  'WORKER_MEMORY_BUDGET_MIB',
  'WORKER_MAX_CONCURRENT_WORKFLOW_TASKS',
  'WORKER_MAX_CONCURRENT_ACTIVITIES',
  'TEMPORAL_DEPLOYMENT_NAME',
  'TEMPORAL_WORKER_BUILD_ID',
  'TEMPORAL_VERSIONING_BEHAVIOR',
  'CALLBACK_PUBLIC_URL',
  'CALLBACK_SECRET',
  'CALLBACK_HOST',
  'CALLBACK_PORT',
  'VIDEO_STORE',
  'ALLOW_PRIVATE_URLS',
  'NOTIFY_URL',
  'NOTIFY_SECRET',
  'NOTIFY_WINDOW_MS',
  'VIDEO_MAX_TASKS_IN_FLIGHT',
  'VIDEO_MAX_TASKS_IN_FLIGHT_BY_MODEL',
  'VIDEO_MAX_CREATES_PER_MINUTE',
  'VIDEO_QUOTA_ACCOUNT',
  'REVIEW_MAX_TASKS_IN_FLIGHT',
  'REVIEW_MAX_SUBMITS_PER_MINUTE',
  'REVIEW_QUOTA_ACCOUNT',
  'ADMISSION_TENANT_WEIGHTS',
  'VIDEO_DAILY_TASKS_BY_TENANT',
  'VIDEO_DAILY_SECONDS_BY_TENANT',
  'ADMISSION_LEASE_MS',
  'PAYLOAD_ENCRYPTION_KEYS',
  'PAYLOAD_ENCRYPTION_KEYS_FILE',
  'CODEC_HOST',
  'CODEC_PORT',
  'CODEC_CORS_ORIGINS',
  'CODEC_AUTH_TOKEN',
];

// The only secret-like values allowed to be written in the file: the sandbox's public dev credentials.
const SANDBOX_DEV_VALUES = ['sandbox-video-key', 'sandbox-review-token'];
const SECRET_NAME = /(KEYS?|TOKEN|SECRET|PASSWORD|PWD)$/;

describe('docker-compose.yml: the production-like stack', () => {
  it('has the services of the design, the sandbox only under its profile, and images pinned', () => {
    expect(Object.keys(services).sort()).toEqual(
      [
        'callbacks',
        'codec-server',
        'grafana',
        'jaeger',
        'postgresql',
        'prometheus',
        'sandbox',
        'temporal',
        'temporal-schema',
        'temporal-setup',
        'temporal-ui',
        'worker',
      ].sort(),
    );
    expect(svc('sandbox').profiles).toEqual(['sandbox']);
    for (const [name, s] of Object.entries(services)) {
      if (name !== 'sandbox') expect(s.profiles, `${name} must start without a profile`).toBeUndefined();
    }

    expect(svc('postgresql').image).toBe('postgres:16');
    // The server image (auto-setup is deprecated) at the server version the tests run (dev server 1.32).
    const server = /^temporalio\/server:(1\.32)\.(\d+)$/.exec(svc('temporal').image ?? '');
    expect(server, 'temporal: temporalio/server pinned to a 1.32.x tag').not.toBeNull();
    for (const name of Object.keys(services)) expect(svc(name).image ?? '').not.toMatch(/auto-setup/);
    // The admin tools (schema tool and CLI) match the server's minor version.
    for (const name of ['temporal-schema', 'temporal-setup']) {
      const adminTools = /^temporalio\/admin-tools:(\d+\.\d+)\.\d+(-[\w.-]+)?$/.exec(svc(name).image ?? '');
      expect(adminTools, `${name}: temporalio/admin-tools pinned`).not.toBeNull();
      expect(adminTools![1]).toBe(server![1]);
    }
    expect(svc('temporal-ui').image).toMatch(/^temporalio\/ui:\d+\.\d+\.\d+$/);
    expect(svc('prometheus').image).toMatch(/^prom\/prometheus:v\d+\.\d+\.\d+$/);
    expect(svc('grafana').image).toMatch(/^grafana\/grafana:\d+\.\d+\.\d+$/);
    expect(svc('jaeger').image).toMatch(/^jaegertracing\/jaeger:2\.\d+\.\d+$/);

    // Postgres keeps its data in a named volume.
    expect(svc('postgresql').volumes).toContain('postgresql-data:/var/lib/postgresql/data');
    expect(compose.volumes).toHaveProperty('postgresql-data');
  });

  it('publishes 7233, 8080, 8787, 8081, 8082 and the observability UIs on the host', () => {
    const published = (name: string) => portsOf(svc(name)).map((p) => `${p.published}->${p.target}`);
    expect(published('temporal')).toEqual(['7233->7233']);
    expect(published('temporal-ui')).toEqual(['8080->8080']);
    expect(published('callbacks')).toEqual(['8787->8787']);
    expect(published('sandbox')).toEqual(['8081->8081', '8082->8082']);
    expect(published('prometheus')).toEqual(['9090->9090']);
    expect(published('grafana')).toEqual(['3000->3000']);
    expect(published('jaeger')).toEqual(['16686->16686']);
    expect(published('codec-server')).toEqual(['8888->8888']);
    expect(svc('worker').ports, 'the worker publishes nothing (Prometheus scrapes it inside)').toBeUndefined();
    // Unauthenticated endpoints stay on the host's loopback; the callback receiver is meant to be reached.
    for (const name of ['temporal', 'temporal-ui', 'codec-server', 'sandbox', 'prometheus', 'grafana', 'jaeger']) {
      for (const p of portsOf(svc(name))) expect(p.hostIp, `${name}:${p.published}`).toBe('127.0.0.1');
    }
    expect(svc('postgresql').ports, 'the database is not published').toBeUndefined();
  });

  it('gives every long-running service a healthcheck that probes the right thing', () => {
    for (const [name, s] of Object.entries(services)) {
      if (name === 'temporal-setup' || name === 'temporal-schema') continue; // one-shot: its exit code is its health
      const test = s.healthcheck?.test;
      expect(s.healthcheck?.disable, `${name} healthcheck disabled`).not.toBe(true);
      expect(Array.isArray(test) ? test.length : (test ?? '').length, `${name} has a healthcheck`).toBeGreaterThan(0);
    }
    const probe = (name: string) => {
      const t = svc(name).healthcheck!.test!;
      return Array.isArray(t) ? t.join(' ') : t;
    };
    expect(probe('postgresql')).toMatch(/pg_isready/);
    expect(probe('temporal')).toMatch(/temporal operator cluster health --address \$\$\(hostname -i\):7233/);
    expect(probe('temporal-ui')).toMatch(/127\.0\.0\.1:8080\/healthz/);
    // Readiness: Temporal reachable (and, for the worker, its pollers polling), on the port Prometheus scrapes.
    expect(probe('callbacks')).toMatch(/fetch\('http:\/\/127\.0\.0\.1:8787\/readyz'\)/);
    expect(probe('worker')).toMatch(/fetch\('http:\/\/127\.0\.0\.1:9464\/readyz'\)/);
    expect(envOf(svc('worker')).PROMETHEUS_BIND_ADDRESS).toBe('0.0.0.0:9464');
    expect(probe('sandbox')).toMatch(/8081.*8082/);
    expect(probe('prometheus')).toMatch(/127\.0\.0\.1:9090\/-\/ready/);
    expect(probe('grafana')).toMatch(/127\.0\.0\.1:3000\/api\/health/);
    expect(probe('jaeger')).toMatch(/127\.0\.0\.1:16686/);
    expect(probe('codec-server')).toMatch(/fetch\('http:\/\/127\.0\.0\.1:8888\/healthz'\)/);
  });

  it('starts in order: postgres healthy -> schemas set up -> temporal healthy -> namespace and search attributes -> worker, callbacks', () => {
    expect(dependsOn(svc('postgresql'))).toEqual({});
    expect(dependsOn(svc('temporal-schema'))).toEqual({ postgresql: 'service_healthy' });
    expect(dependsOn(svc('temporal'))).toEqual({ 'temporal-schema': 'service_completed_successfully' });
    expect(dependsOn(svc('grafana'))).toEqual({ prometheus: 'service_healthy' });
    expect(dependsOn(svc('temporal-setup'))).toEqual({ temporal: 'service_healthy' });
    expect(dependsOn(svc('temporal-ui'))).toEqual({ temporal: 'service_healthy' });
    expect(dependsOn(svc('worker'))).toEqual({ 'temporal-setup': 'service_completed_successfully' });
    expect(dependsOn(svc('callbacks'))).toEqual({ 'temporal-setup': 'service_completed_successfully' });
    // Nothing in the default stack may depend on the optional sandbox profile.
    for (const [name, s] of Object.entries(services)) {
      expect(Object.keys(dependsOn(s)), `${name} depends on the sandbox`).not.toContain('sandbox');
    }
    expect(svc('temporal-setup').restart).toBe('no');
    expect(svc('temporal-schema').restart).toBe('no');
  });

  it('gives the worker a stop_grace_period that covers its shutdown grace time, and the receiver its drain', () => {
    const grace = /shutdownGraceTime: '(\d+s)'/.exec(read('src/worker.ts'))?.[1];
    expect(grace, 'src/worker.ts sets shutdownGraceTime').toBeDefined();
    const stop = svc('worker').stop_grace_period ?? '10s'; // compose's default is 10 s
    // The grace time, then closing the service clients and the connection: at least 10 s of margin.
    expect(durationMs(stop)).toBeGreaterThanOrEqual(durationMs(grace!) + 10_000);
    const drain = Number(interpolatedEnv(svc('callbacks'), REQUIRED_SECRETS).CALLBACK_DRAIN_DELAY_MS);
    expect(durationMs(svc('callbacks').stop_grace_period ?? '10s')).toBeGreaterThanOrEqual(drain + 10_000);
  });

  it('has Prometheus scrape the worker, the receiver and the server on the ports they serve', () => {
    const prom = parse(read('deploy/prometheus.yml')) as {
      scrape_configs: { job_name: string; metrics_path?: string; static_configs: { targets: string[] }[] }[];
    };
    const targets = Object.fromEntries(
      prom.scrape_configs.map((c) => [c.job_name, c.static_configs.flatMap((t) => t.targets)]),
    );
    expect(targets).toEqual({ worker: ['worker:9464'], callbacks: ['callbacks:8787'], temporal: ['temporal:8000'] });
    for (const c of prom.scrape_configs) expect(c.metrics_path ?? '/metrics').toBe('/metrics');
    expect(envOf(svc('worker')).PROMETHEUS_BIND_ADDRESS).toMatch(/:9464$/);
    expect(envOf(svc('callbacks')).CALLBACK_PORT).toBe('8787');
    expect(envOf(svc('temporal')).PROMETHEUS_ENDPOINT).toBe('0.0.0.0:8000');
    expect(svc('prometheus').volumes).toContain('./deploy/prometheus.yml:/etc/prometheus/prometheus.yml:ro');
  });

  it('provisions a Grafana dashboard whose JSON parses and names only metrics the package exports', () => {
    expect(svc('grafana').volumes).toEqual([
      './deploy/grafana/provisioning:/etc/grafana/provisioning:ro',
      './deploy/grafana/dashboards:/var/lib/grafana/dashboards:ro',
    ]);
    const provider = parse(read('deploy/grafana/provisioning/dashboards/review-video.yml')) as {
      providers: { options: { path: string } }[];
    };
    expect(provider.providers[0]!.options.path).toBe('/var/lib/grafana/dashboards');
    const datasources = parse(read('deploy/grafana/provisioning/datasources/prometheus.yml')) as {
      datasources: { uid: string; url: string }[];
    };
    expect(datasources.datasources.find((d) => d.uid === 'prometheus')?.url).toBe('http://prometheus:9090');
    const dashboard = JSON.parse(read('deploy/grafana/dashboards/review-video.json')) as {
      panels: { title: string; targets: { expr: string }[] }[];
    };
    const exprs = dashboard.panels.flatMap((p) => p.targets.map((t) => t.expr));
    const used = new Set(
      exprs.flatMap((e) =>
        [...e.matchAll(/\b((?:rtg|temporal)_\w+)/g)].map((m) => m[1]!.replace(/_(bucket|count|sum)$/, '')),
      ),
    );
    const exported = new Set<string>([...Object.values(METRIC_NAMES), ...SDK_METRICS]);
    expect([...used].filter((m) => !exported.has(m))).toEqual([]);
    // The panels the issue asks for: jobs by outcome, API calls and errors, callback latency,
    // schedule-to-start latency, worker slots in use.
    for (const m of [
      'temporal_workflow_completed_total',
      METRIC_NAMES.apiRequests,
      METRIC_NAMES.callbackSignalDuration,
      'temporal_activity_schedule_to_start_latency_seconds',
      'temporal_worker_task_slots_used',
    ])
      expect(used, m).toContain(m);
  });

  it('runs our three entry points from the one image built by the Dockerfile', () => {
    const expected: Record<string, string> = {
      worker: 'node --max-old-space-size=256 dist/worker.js',
      callbacks: 'node dist/callbacks/main.js',
      // The sandbox package (packages/sandbox), built in the same image.
      sandbox: 'node packages/sandbox/dist/main.js',
      'codec-server': 'node dist/codec/main.js',
    };
    const build = tsconfigBuild();
    for (const [name, command] of Object.entries(expected)) {
      const s = svc(name);
      expect(commandOf(s), name).toBe(command);
      expect(s.build, name).toEqual({ context: '.', dockerfile: 'Dockerfile' });
      expect(s.image, name).toBe(svc('worker').image);
      // dist/X.js comes from src/X.ts through tsconfig.build.json (rootDir src, outDir dist); a workspace
      // package's dist/ from its src/ the same way (packages/sandbox/src/main.ts for the sandbox).
      const source = command
        .replace(/^node (?:--\S+ )*((?:packages\/[\w-]+\/)?)dist\//, '$1src/')
        .replace(/\.js$/, '.ts');
      expect(
        build.exclude.some((ex) => source === ex || source.startsWith(`${ex}/`)),
        `${source} excluded from the build`,
      ).toBe(false);
      if (!existsSync(path.join(root, source))) console.warn(`[compose] ${name}: ${source} does not exist yet`);
    }
  });

  it('gives the worker and the receiver every variable of the design table (src/config/ schemas)', () => {
    // The schemas of src/config/ are the code's list; the design's table is the contract: they agree.
    // VIDEO_STORE may be read by its own loader rather than these schemas (the video-store work moves it).
    const fromSchemas = [
      ...temporalVars,
      ...serviceVars,
      ...workerVars,
      ...callbackVars,
      ...notifyVars,
      ...admissionVars,
      ...encryptionVars,
      ...codecServerVars,
    ];
    expect(fromSchemas).toEqual(DESIGN_VARIABLES.filter((v) => v !== 'VIDEO_STORE' || fromSchemas.includes(v)));
    expect(readmeTableVariables(readFileSync(path.join(root, 'README.md'), 'utf8'))).toEqual(DESIGN_VARIABLES);

    const worker = envOf(svc('worker'));
    const callbacks = envOf(svc('callbacks'));
    // Worker: Temporal, both services, and what it needs to sign callback URLs.
    for (const v of [
      ...temporalVars,
      ...serviceVars,
      ...workerVars,
      'CALLBACK_PUBLIC_URL',
      'CALLBACK_SECRET',
      ...notifyVars,
      ...admissionVars,
    ]) {
      expect(Object.keys(worker), `worker ${v}`).toContain(v);
    }
    // Receiver: Temporal (it signals workflows) and the callback settings; not the services' credentials.
    for (const v of [...temporalVars, ...callbackVars]) expect(Object.keys(callbacks), `callbacks ${v}`).toContain(v);
    for (const v of [...serviceVars, ...workerVars, ...admissionVars])
      expect(Object.keys(callbacks), `callbacks must not get ${v}`).not.toContain(v);
    // Together with the codec server, they cover the whole table.
    const both = new Set([
      ...Object.keys(worker),
      ...Object.keys(callbacks),
      ...Object.keys(envOf(svc('codec-server'))),
    ]);
    expect(DESIGN_VARIABLES.filter((v) => !both.has(v))).toEqual([]);

    for (const env of [worker, callbacks]) {
      expect(env.TEMPORAL_ADDRESS).toBe('temporal:7233');
      expect(env.TEMPORAL_NAMESPACE).toBe('${TEMPORAL_NAMESPACE:-default}');
      expect(env.TEMPORAL_TASK_QUEUE).toBe('${TEMPORAL_TASK_QUEUE:-video-generation}');
    }
    // The receiver listens on every interface of its container, on the published port.
    expect(callbacks.CALLBACK_HOST).toBe('0.0.0.0');
    expect(callbacks.CALLBACK_PORT).toBe('8787');
    // No fallback to the sandbox: the service settings come from .env, or from deploy/sandbox.env.
    for (const v of ['VIDEO_API_BASE_URL', 'VIDEO_API_KEY', 'REVIEW_API_BASE_URL', 'REVIEW_ACCESS_TOKEN'])
      expect(worker[v], v).toBe(`\${${v}:-}`);
    expect(worker).toMatchObject({ LOG_FORMAT: 'json', PROMETHEUS_BIND_ADDRESS: '0.0.0.0:9464' });
    expect(callbacks).toMatchObject({ LOG_FORMAT: 'json' });
    // Traces to Jaeger's OTLP/HTTP port at 10 %, one service name per process; an empty endpoint turns them off.
    for (const [env, name] of [
      [worker, 'review-video-worker'],
      [callbacks, 'review-video-callbacks'],
    ] as const) {
      expect(env).toMatchObject({
        OTEL_EXPORTER_OTLP_ENDPOINT: '${OTEL_EXPORTER_OTLP_ENDPOINT-http://jaeger:4318}',
        OTEL_SERVICE_NAME: name,
      });
      expect(
        interpolatedEnv(svc(name === 'review-video-worker' ? 'worker' : 'callbacks'), REQUIRED_SECRETS),
      ).toMatchObject({
        OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
        OTEL_TRACES_SAMPLER_ARG: '0.1',
      });
    }
    expect(
      interpolatedEnv(svc('worker'), { ...REQUIRED_SECRETS, OTEL_EXPORTER_OTLP_ENDPOINT: '' })
        .OTEL_EXPORTER_OTLP_ENDPOINT,
    ).toBe('');
    expect(envOf(svc('sandbox'))).toMatchObject({
      SANDBOX_HOST: '0.0.0.0',
      SANDBOX_VIDEO_PORT: '8081',
      SANDBOX_REVIEW_PORT: '8082',
    });
    // deploy/sandbox.env gives the worker the sandbox's dev credentials and addresses.
    expect(sandboxEnvFile()).toMatchObject({
      VIDEO_API_BASE_URL: 'http://sandbox:8081',
      VIDEO_API_KEY: 'sandbox-video-key',
      REVIEW_API_BASE_URL: 'http://sandbox:8082',
      REVIEW_ACCESS_TOKEN: 'sandbox-review-token',
    });
    expect(envOf(svc('sandbox')).SANDBOX_API_KEY).toBe('${SANDBOX_API_KEY:-sandbox-video-key}');
    expect(envOf(svc('sandbox')).SANDBOX_ACCESS_TOKEN).toBe('${SANDBOX_ACCESS_TOKEN:-sandbox-review-token}');
    // The namespace temporal-setup creates is the one the worker uses.
    expect(envOf(svc('temporal-setup')).TEMPORAL_NAMESPACE).toBe('${TEMPORAL_NAMESPACE:-default}');
  });

  it('hands the worker and the receiver an environment that src/config/ accepts, with the design defaults', () => {
    // Without service settings the worker stops at start, naming them: no quiet fallback to the sandbox.
    expect(() => assertServiceSettings(interpolatedEnv(svc('worker'), REQUIRED_SECRETS))).toThrow(
      /missing service settings: VIDEO_API_BASE_URL, VIDEO_API_KEY, REVIEW_API_BASE_URL, REVIEW_ACCESS_TOKEN/,
    );
    const worker = interpolatedEnv(svc('worker'), { ...REQUIRED_SECRETS, ...sandboxEnvFile() });
    assertServiceSettings(worker);
    const callbacks = interpolatedEnv(svc('callbacks'), REQUIRED_SECRETS);
    expect(loadTemporalConfig(worker)).toEqual({
      address: 'temporal:7233',
      namespace: 'default',
      taskQueue: 'video-generation',
    });
    expect(loadTemporalConfig(callbacks)).toEqual(loadTemporalConfig(worker));
    // No webhooks by default: jobs with `notify` are refused at their start; the window is 24 h.
    expect(loadNotifyConfig(worker)).toEqual({
      url: undefined,
      secrets: undefined,
      windowMs: 86_400_000,
      allowPrivateUrls: false,
    });
    const services = loadServicesConfig(worker);
    expect(services.video).toMatchObject({
      baseUrl: 'http://sandbox:8081',
      apiKey: 'sandbox-video-key',
      cancelMethod: 'POST',
      cancelPath: '/v1/task/cancel/{id}',
      timeoutMs: 30_000,
      connections: 32,
    });
    expect(services.review).toMatchObject({
      baseUrl: 'http://sandbox:8082',
      accessToken: 'sandbox-review-token',
      timeoutMs: 30_000,
      connections: 32,
    });
    // Polling only by default (sandbox.env turns callbacks on); the receiver listens on 0.0.0.0:8787.
    expect(loadCallbackConfig(interpolatedEnv(svc('worker'), REQUIRED_SECRETS)).publicUrl).toBeUndefined();
    expect(loadCallbackConfig(worker).publicUrl).toBe('http://callbacks:8787');
    expect(loadCallbackConfig(callbacks)).toEqual({
      publicUrl: undefined,
      secret: [REQUIRED_SECRETS.CALLBACK_SECRET],
      host: '0.0.0.0',
      port: 8787,
    });
    // Values from the user's environment win over the defaults.
    const custom = {
      ...REQUIRED_SECRETS,
      ...sandboxEnvFile(),
      VIDEO_API_BASE_URL: 'https://video.example.com',
      VIDEO_CANCEL_METHOD: 'DELETE',
      HTTP_TIMEOUT_MS: '5000',
      HTTP_MAX_CONNECTIONS: '128',
      WORKER_MAX_CACHED_WORKFLOWS: '500',
      WORKER_MAX_CONCURRENT_ACTIVITIES: '64',
      CALLBACK_PUBLIC_URL: 'http://callbacks:8787',
      TEMPORAL_TASK_QUEUE: 'other-queue',
    };
    const customWorker = interpolatedEnv(svc('worker'), custom);
    expect(loadServicesConfig(customWorker).video).toMatchObject({
      baseUrl: 'https://video.example.com',
      cancelMethod: 'DELETE',
      timeoutMs: 5000,
      connections: 128,
    });
    expect(loadServicesConfig(customWorker).review.connections).toBe(128);
    // Worker sizing: only what was set reaches Worker.create; the rest keeps the SDK's defaults.
    expect(loadWorkerTuning(worker)).toEqual({});
    expect(loadWorkerTuning(customWorker)).toEqual({
      maxCachedWorkflows: 500,
      maxConcurrentActivityTaskExecutions: 64,
    });
    expect(() =>
      loadWorkerTuning({ WORKER_MAX_CACHED_WORKFLOWS: '100', WORKER_MAX_CONCURRENT_WORKFLOW_TASKS: '200' }),
    ).toThrow(
      'invalid configuration: WORKER_MAX_CONCURRENT_WORKFLOW_TASKS must not exceed WORKER_MAX_CACHED_WORKFLOWS',
    );
    expect(() => loadWorkerTuning({ WORKER_MAX_CONCURRENT_ACTIVITIES: '0' })).toThrow(
      /WORKER_MAX_CONCURRENT_ACTIVITIES/,
    );
    expect(loadCallbackConfig(customWorker).publicUrl).toBe('http://callbacks:8787');
    // Public addresses only by default; a compose service name is public as written (no DNS lookup).
    expect(worker.ALLOW_PRIVATE_URLS).toBe('');
    expect(services.video.allowPrivateUrls).toBe(false);
    expect(services.review.allowPrivateUrls).toBe(false);
    expect(
      loadServicesConfig(interpolatedEnv(svc('worker'), { ...custom, ALLOW_PRIVATE_URLS: 'true' })).video
        .allowPrivateUrls,
    ).toBe(true);
    expect(loadTemporalConfig(customWorker).taskQueue).toBe('other-queue');
    // Without the required secrets the file does not even interpolate.
    expect(() => interpolatedEnv(svc('worker'), {})).toThrow(/CALLBACK_SECRET/);
    expect(() => interpolatedEnv(svc('postgresql'), {})).toThrow(/POSTGRES_PASSWORD/);
  });

  it('gives the worker, the receiver and the codec server the same keys, and points the Web UI at the codec server', () => {
    const keys = `k2:${Buffer.alloc(32, 2).toString('base64')},k1:${Buffer.alloc(32, 1).toString('base64')}`;
    const vars = { ...REQUIRED_SECRETS, PAYLOAD_ENCRYPTION_KEYS: keys };
    for (const name of ['worker', 'callbacks', 'codec-server']) {
      for (const v of encryptionVars) expect(envOf(svc(name))[v], `${name} ${v}`).toBe(`\${${v}:-}`);
      expect(loadEncryptionConfig(interpolatedEnv(svc(name), vars)), name).toEqual({ keys, keysFile: undefined });
      // Unset: off (no codec), as src/config/env.ts reads an empty variable.
      expect(loadEncryptionConfig(interpolatedEnv(svc(name), REQUIRED_SECRETS)), name).toEqual({
        keys: undefined,
        keysFile: undefined,
      });
    }
    const codec = loadCodecServerConfig(interpolatedEnv(svc('codec-server'), REQUIRED_SECRETS));
    expect(codec).toEqual({
      host: '0.0.0.0',
      port: 8888,
      corsOrigins: ['http://localhost:8080', 'http://127.0.0.1:8080'],
      authToken: undefined,
    });
    // The browser reaches the codec server on its published port, from the UI's published origin.
    const endpoint = new URL(interpolatedEnv(svc('temporal-ui'), {}).TEMPORAL_CODEC_ENDPOINT!);
    const codecPort = portsOf(svc('codec-server')).find((p) => p.target === codec.port)!;
    expect(Number(endpoint.port)).toBe(codecPort.published);
    const uiPort = portsOf(svc('temporal-ui'))[0]!.published;
    expect(codec.corsOrigins).toContain(`http://${endpoint.hostname}:${uiPort}`);
    expect(svc('codec-server').depends_on).toBeUndefined();
  });

  it('sets up both PostgreSQL schemas with admin-tools, then runs the server image on them', () => {
    const env = envOf(svc('temporal'));
    expect(env).toMatchObject({ DB: 'postgres12', DB_PORT: '5432', POSTGRES_SEEDS: 'postgresql' });
    expect(env.POSTGRES_USER).toBe(envOf(svc('postgresql')).POSTGRES_USER);
    expect(env.POSTGRES_PWD).toBe(envOf(svc('postgresql')).POSTGRES_PASSWORD);
    const schema = svc('temporal-schema');
    expect(envOf(schema).SQL_PASSWORD).toBe(envOf(svc('postgresql')).POSTGRES_PASSWORD);
    expect(schema.entrypoint).toEqual(['/bin/sh', '-c']);
    const script = Array.isArray(schema.command) ? schema.command.join('\n') : (schema.command ?? '');
    expect(script).toMatch(/temporal-sql-tool --plugin postgres12 --ep postgresql -p 5432/);
    for (const db of ['temporal', 'temporal_visibility']) {
      expect(script).toContain(`tool --db ${db} setup-schema -v 0.0`);
    }
    expect(script).toContain('tool --db temporal update-schema -d "$$schema/temporal/versioned"');
    expect(script).toContain('tool --db temporal_visibility update-schema -d "$$schema/visibility/versioned"');
    const sh = spawnSync('sh', ['-n'], { input: script.replaceAll('$$', '$'), encoding: 'utf8' });
    expect(sh.status, sh.stderr).toBe(0);
  });

  it('writes no secret value except the sandbox dev credentials; required secrets fail loudly when unset', () => {
    for (const [name, s] of Object.entries(services)) {
      for (const [key, value] of Object.entries(envOf(s))) {
        if (!SECRET_NAME.test(key)) continue;
        // Every secret is an interpolation of one variable: `${VAR:?message}` or `${VAR:-default}`.
        const m = /^\$\{([A-Z0-9_]+)(?::([?-])(.*))?\}$/.exec(value);
        expect(m, `${name}.${key} must come from the environment, not be written: ${value}`).not.toBeNull();
        // A default is either empty (the setting is then missing, and the process says so) or a dev value.
        if (m![2] === '-' && m![3] !== '') expect(SANDBOX_DEV_VALUES, `${name}.${key} default`).toContain(m![3]);
      }
    }
    // The secrets without a safe default are required.
    expect(envOf(svc('grafana')).GF_SECURITY_ADMIN_PASSWORD).toMatch(/^\$\{GRAFANA_ADMIN_PASSWORD:\?.+\}$/);
    expect(envOf(svc('postgresql')).POSTGRES_PASSWORD).toMatch(/^\$\{POSTGRES_PASSWORD:\?.+\}$/);
    expect(envOf(svc('temporal')).POSTGRES_PWD).toMatch(/^\$\{POSTGRES_PASSWORD:\?.+\}$/);
    for (const name of ['worker', 'callbacks']) {
      expect(envOf(svc(name)).CALLBACK_SECRET).toMatch(/^\$\{CALLBACK_SECRET:\?.+\}$/);
    }
    // The dev credentials appear once in the file (the sandbox's own default), and in deploy/sandbox.env.
    for (const v of SANDBOX_DEV_VALUES) expect(composeText.split(v).length - 1, v).toBe(1);
    // Nothing secret is baked into the image, and .env never reaches the build context.
    expect(read('Dockerfile')).not.toMatch(/^\s*(ENV|ARG)\s+\S*(KEY|TOKEN|SECRET|PASSWORD|PWD)\b/m);
    const ignored = read('.dockerignore')
      .split('\n')
      .map((l) => l.trim());
    for (const entry of ['.env', 'node_modules', '.temporal-cli', 'dist', '.git', 'bench/results', '.tmp']) {
      expect(ignored, `.dockerignore ${entry}`).toContain(entry);
    }
  });

  it('registers exactly the search attributes of src/workflows/search-attributes.ts, idempotently', () => {
    const setup = svc('temporal-setup');
    expect(setup.entrypoint).toEqual(['/bin/sh', '-c']);
    const script = Array.isArray(setup.command) ? setup.command.join('\n') : (setup.command ?? '');
    expect(registeredSearchAttributes(script)).toEqual(contractSearchAttributes());
    expect(script).toMatch(
      /temporal operator search-attribute create --address "\$\$addr" --namespace "\$\$ns" --name "\$\$1" --type "\$\$2"/,
    );
    expect(envOf(setup).TEMPORAL_ADDRESS).toBe('temporal:7233');
    expect(script).toMatch(/already exists/); // a second `up` must succeed
    expect(script).toMatch(/temporal operator namespace create/); // the namespace, before the attributes
    expect(script).toMatch(/temporal operator namespace describe/); // waits until it is served

    // The script is valid sh once compose has unescaped `$$`.
    const sh = spawnSync('sh', ['-n'], { input: script.replaceAll('$$', '$'), encoding: 'utf8' });
    expect(sh.stderr).toBe('');
    expect(sh.status).toBe(0);
  });

  it('validates with `docker compose config` when the compose plugin is installed', () => {
    const version = spawnSync('docker', ['compose', 'version'], { encoding: 'utf8' });
    if (version.error || version.status !== 0) {
      const why = version.error ? version.error.message : (version.stderr || version.stdout).trim();
      console.log(
        `[compose] NOT validated with \`docker compose config -q\`: the docker compose plugin is not installed here (${why}). ` +
          'The YAML checks of this file still apply.',
      );
      expect(version.error !== undefined || version.status !== 0).toBe(true);
      return;
    }
    // Only what compose needs, and no .env: the result does not depend on the machine's environment.
    const baseEnv: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME };
    if (process.env.DOCKER_CONFIG) baseEnv.DOCKER_CONFIG = process.env.DOCKER_CONFIG;
    const run = (env: NodeJS.ProcessEnv, ...args: string[]) =>
      spawnSync('docker', ['compose', '-f', 'docker-compose.yml', '--env-file', '/dev/null', ...args], {
        cwd: root,
        env,
        encoding: 'utf8',
      });
    for (const profile of [[], ['--profile', 'sandbox']]) {
      const r = run({ ...baseEnv, ...REQUIRED_SECRETS }, ...profile, 'config', '-q');
      expect(r.stderr, `docker compose ${profile.join(' ')} config -q`).toBe('');
      expect(r.status).toBe(0);
    }
    // Compose's own rendering agrees with the checks above.
    const rendered = run({ ...baseEnv, ...REQUIRED_SECRETS }, '--profile', 'sandbox', 'config', '--format', 'json');
    expect(rendered.status, rendered.stderr).toBe(0);
    const config = JSON.parse(rendered.stdout) as {
      services: Record<string, { environment?: Record<string, string> }>;
    };
    expect(Object.keys(config.services).sort()).toEqual(Object.keys(services).sort());
    for (const name of ['worker', 'callbacks', 'sandbox', 'temporal']) {
      expect(config.services[name]!.environment, name).toEqual(interpolatedEnv(svc(name), REQUIRED_SECRETS));
    }
    // Without a required secret compose refuses, naming the variable.
    const missing = run({ ...baseEnv, CALLBACK_SECRET: REQUIRED_SECRETS.CALLBACK_SECRET }, 'config', '-q');
    expect(missing.status).not.toBe(0);
    expect(missing.stderr).toMatch(/POSTGRES_PASSWORD/);
  });
});

describe('Dockerfile', () => {
  const dockerfile = read('Dockerfile');
  const instructions = dockerfile
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  const stages = instructions.reduce<string[][]>((acc, line) => {
    if (/^FROM\s/i.test(line)) acc.push([]);
    acc.at(-1)?.push(line);
    return acc;
  }, []);

  it('builds dist/ with tsc and bundles the workflow code in a node:24-bookworm-slim (LTS) build stage', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    for (const stage of stages) expect(stage[0]).toMatch(/^FROM node:24-bookworm-slim AS \w+$/);
    const build = stages[0]!;
    expect(build).toContain('RUN --mount=type=cache,target=/root/.npm npm ci --no-audit --no-fund');
    expect(build).toContain('RUN npm run build');
    const pkg = JSON.parse(read('package.json')) as { scripts: Record<string, string> };
    expect(pkg.scripts.build).toMatch(/(^|&& )tsc -p tsconfig.build.json$/);
    expect(tsconfigBuild().outDir).toBe('dist');
    expect(build).toContain('COPY tsconfig.json tsconfig.build.json ./');
    expect(build).toContain('COPY src ./src');
    // One lockfile for the workspaces: `npm ci` needs every workspace's manifest, in both stages.
    const { workspaces } = JSON.parse(read('package.json')) as { workspaces: string[] };
    expect(workspaces.length).toBeGreaterThan(0);
    for (const stage of [build, stages.at(-1)!]) {
      const ci = stage.findIndex((l) => /^RUN .*npm ci\b/.test(l));
      for (const ws of workspaces) expect(stage.slice(0, ci)).toContain(`COPY ${ws}/package.json ./${ws}/`);
    }
    // The sandbox's sources before the build (the root's build script builds it first).
    expect(build).toContain('COPY packages/sandbox ./packages/sandbox');
    expect(pkg.scripts.build).toMatch(/^npm run build -w temporal-review-video-sandbox && /);
    // The bundle made at build time, where the worker looks for it (src/worker.ts prebuiltBundle).
    expect(build).toContain('RUN node dist/bundle-workflows.js dist/workflow-bundle.js');
    expect(read('src/worker.ts')).toContain("new URL('./workflow-bundle.js', import.meta.url)");
    expect(existsSync(path.join(root, 'src/bundle-workflows.ts'))).toBe(true);
  });

  it('runs production dependencies and dist/ as a non-root user', () => {
    const runtime = stages.at(-1)!;
    const name = /AS (\w+)$/.exec(stages[0]![0]!)![1];
    expect(runtime.some((l) => /^RUN .*npm ci --omit=dev\b/.test(l))).toBe(true);
    expect(runtime).toContain(`COPY --from=${name} /app/dist ./dist`);
    expect(runtime).toContain(`COPY --from=${name} /app/packages/sandbox/dist ./packages/sandbox/dist`);
    const users = runtime.filter((l) => /^USER\s/i.test(l));
    expect(users.length).toBeGreaterThan(0);
    const user = users.at(-1)!.split(/\s+/)[1]!;
    expect(['root', '0', '0:0']).not.toContain(user);
    // Nothing runs as root after the switch, and the default command is the worker.
    const after = runtime.slice(runtime.lastIndexOf(users.at(-1)!) + 1);
    expect(after.filter((l) => /^RUN\s/i.test(l))).toEqual([]);
    expect(runtime.at(-1)).toBe('CMD ["node", "--max-old-space-size=256", "dist/worker.js"]');
  });
});

function tsconfigBuild(): { outDir: string; exclude: string[] } {
  const c = JSON.parse(read('tsconfig.build.json')) as { compilerOptions?: { outDir?: string }; exclude?: string[] };
  return { outDir: String(c.compilerOptions?.outDir), exclude: c.exclude ?? [] };
}
