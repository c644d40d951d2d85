// The production-like stack (docker-compose.yml + Dockerfile), checked without a Docker engine: the YAML is
// parsed and held against the design (configuration table), src/config.ts (the variables the code reads)
// and src/workflows/search-attributes.ts (what the workflows upsert). When the docker compose plugin is
// installed, `docker compose config -q` validates the file too (it needs no daemon).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  callbackConfigSchema,
  loadCallbackConfig,
  loadServicesConfig,
  loadTemporalConfig,
  loadWorkerTuning,
  servicesConfigSchema,
  temporalConfigSchema,
  workerTuningSchema,
} from '../src/config.js';
import { allSearchAttributes } from '../src/workflows/search-attributes.js';

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
const REQUIRED_SECRETS = { POSTGRES_PASSWORD: 'compose-test-only', CALLBACK_SECRET: 'compose-test-only-0123456789' };

/** The keys of a zod object schema, also when wrapped (refinements, pipes, effects). */
function objectKeys(schema: unknown): string[] {
  let s = schema as { shape?: object; _zod?: { def?: { in?: unknown; schema?: unknown; innerType?: unknown } } };
  for (let i = 0; i < 5 && s && !s.shape; i++) {
    const def = s._zod?.def;
    s = (def?.in ?? def?.schema ?? def?.innerType) as typeof s;
  }
  if (!s?.shape) throw new Error('not a zod object schema');
  return Object.keys(s.shape);
}

const temporalVars = objectKeys(temporalConfigSchema);
const serviceVars = objectKeys(servicesConfigSchema);
const workerVars = objectKeys(workerTuningSchema);
const callbackVars = objectKeys(callbackConfigSchema);

// The variables of the configuration table of the design (the project's contract, also the README's
// configuration table), in its order, plus the ones this project added (HTTP_MAX_CONNECTIONS, WORKER_*).
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
  'WORKER_MAX_CONCURRENT_WORKFLOW_TASKS',
  'WORKER_MAX_CONCURRENT_ACTIVITIES',
  'CALLBACK_PUBLIC_URL',
  'CALLBACK_SECRET',
  'CALLBACK_HOST',
  'CALLBACK_PORT',
  'ALLOW_PRIVATE_URLS',
];

/** The variables named in the first column of the README's "Configuration" table. */
function readmeTableVariables(readme: string): string[] {
  const start = readme.indexOf('## Configuration');
  if (start < 0) throw new Error('README.md has no "## Configuration" table');
  const lines = readme.slice(start).split('\n').slice(1);
  const rows: string[] = [];
  for (const line of lines) {
    if (!line.startsWith('|')) {
      if (rows.length > 0) break;
      continue;
    }
    rows.push(line);
  }
  return rows
    .slice(2) // header and separator
    .flatMap((row) => row.split('|')[1]!.split(','))
    .map((v) => v.trim().replace(/`/g, ''))
    .filter(Boolean);
}

// The only secret-like values allowed to be written in the file: the sandbox's public dev credentials.
const SANDBOX_DEV_VALUES = ['sandbox-video-key', 'sandbox-review-token'];
const SECRET_NAME = /(KEY|TOKEN|SECRET|PASSWORD|PWD)$/;

describe('docker-compose.yml: the production-like stack', () => {
  it('has the services of the design, the sandbox only under its profile, and images pinned', () => {
    expect(Object.keys(services).sort()).toEqual(
      ['callbacks', 'postgresql', 'sandbox', 'temporal', 'temporal-setup', 'temporal-ui', 'worker'].sort(),
    );
    expect(svc('sandbox').profiles).toEqual(['sandbox']);
    for (const [name, s] of Object.entries(services)) {
      if (name !== 'sandbox') expect(s.profiles, `${name} must start without a profile`).toBeUndefined();
    }

    expect(svc('postgresql').image).toBe('postgres:16');
    const autoSetup = /^temporalio\/auto-setup:(1\.2\d)\.(\d+)$/.exec(svc('temporal').image ?? '');
    expect(autoSetup, 'temporal: temporalio/auto-setup pinned to a 1.2x.y tag').not.toBeNull();
    // The admin tools (the CLI that registers the search attributes) match the server's minor version.
    const adminTools = /^temporalio\/admin-tools:(\d+\.\d+)\.\d+(-[\w.-]+)?$/.exec(svc('temporal-setup').image ?? '');
    expect(adminTools, 'temporal-setup: temporalio/admin-tools pinned').not.toBeNull();
    expect(adminTools![1]).toBe(autoSetup![1]);
    expect(svc('temporal-ui').image).toMatch(/^temporalio\/ui:\d+\.\d+\.\d+$/);

    // Postgres keeps its data in a named volume.
    expect(svc('postgresql').volumes).toContain('postgresql-data:/var/lib/postgresql/data');
    expect(compose.volumes).toHaveProperty('postgresql-data');
  });

  it('publishes 7233, 8080, 8787, 8081 and 8082 on the host', () => {
    const published = (name: string) => portsOf(svc(name)).map((p) => `${p.published}->${p.target}`);
    expect(published('temporal')).toEqual(['7233->7233']);
    expect(published('temporal-ui')).toEqual(['8080->8080']);
    expect(published('callbacks')).toEqual(['8787->8787']);
    expect(published('sandbox')).toEqual(['8081->8081', '8082->8082']);
    // Unauthenticated endpoints stay on the host's loopback; the callback receiver is meant to be reached.
    for (const name of ['temporal', 'temporal-ui', 'sandbox']) {
      for (const p of portsOf(svc(name))) expect(p.hostIp, `${name}:${p.published}`).toBe('127.0.0.1');
    }
    expect(svc('postgresql').ports, 'the database is not published').toBeUndefined();
  });

  it('gives every long-running service a healthcheck that probes the right thing', () => {
    for (const [name, s] of Object.entries(services)) {
      if (name === 'temporal-setup') continue; // one-shot: its exit code is its health
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
    expect(probe('callbacks')).toMatch(/fetch\('http:\/\/127\.0\.0\.1:8787\/healthz'\)/);
    expect(probe('sandbox')).toMatch(/8081.*8082/);
    // The worker's probe is a script shipped in the image (the Dockerfile copies it).
    expect(probe('worker')).toBe('CMD node deploy/worker-healthcheck.mjs');
    expect(existsSync(path.join(root, 'deploy/worker-healthcheck.mjs'))).toBe(true);
    expect(read('Dockerfile')).toMatch(/^COPY deploy\/worker-healthcheck\.mjs \.\/deploy\/worker-healthcheck\.mjs$/m);
  });

  it('starts in order: postgres healthy -> temporal healthy -> search attributes registered -> worker, callbacks', () => {
    expect(dependsOn(svc('postgresql'))).toEqual({});
    expect(dependsOn(svc('temporal'))).toEqual({ postgresql: 'service_healthy' });
    expect(dependsOn(svc('temporal-setup'))).toEqual({ temporal: 'service_healthy' });
    expect(dependsOn(svc('temporal-ui'))).toEqual({ temporal: 'service_healthy' });
    expect(dependsOn(svc('worker'))).toEqual({ 'temporal-setup': 'service_completed_successfully' });
    expect(dependsOn(svc('callbacks'))).toEqual({ 'temporal-setup': 'service_completed_successfully' });
    // Nothing in the default stack may depend on the optional sandbox profile.
    for (const [name, s] of Object.entries(services)) {
      expect(Object.keys(dependsOn(s)), `${name} depends on the sandbox`).not.toContain('sandbox');
    }
    expect(svc('temporal-setup').restart).toBe('no');
  });

  it('runs our three entry points from the one image built by the Dockerfile', () => {
    const expected: Record<string, string> = {
      worker: 'node dist/worker.js',
      callbacks: 'node dist/callbacks/main.js',
      sandbox: 'node dist/sandbox/main.js',
    };
    const build = tsconfigBuild();
    for (const [name, command] of Object.entries(expected)) {
      const s = svc(name);
      expect(commandOf(s), name).toBe(command);
      expect(s.build, name).toEqual({ context: '.', dockerfile: 'Dockerfile' });
      expect(s.image, name).toBe(svc('worker').image);
      // dist/X.js comes from src/X.ts through tsconfig.build.json (rootDir src, outDir dist).
      const source = command.replace(/^node dist\//, 'src/').replace(/\.js$/, '.ts');
      expect(
        build.exclude.some((ex) => source === ex || source.startsWith(`${ex}/`)),
        `${source} excluded from the build`,
      ).toBe(false);
      if (!existsSync(path.join(root, source))) console.warn(`[compose] ${name}: ${source} does not exist yet`);
    }
  });

  it('gives the worker and the receiver every variable of the design table (src/config.ts schemas)', () => {
    // The schemas of src/config.ts are the code's list; the design's table is the contract: they agree.
    expect([...temporalVars, ...serviceVars, ...workerVars, ...callbackVars]).toEqual(DESIGN_VARIABLES);
    expect(readmeTableVariables(readFileSync(path.join(root, 'README.md'), 'utf8'))).toEqual(DESIGN_VARIABLES);

    const worker = envOf(svc('worker'));
    const callbacks = envOf(svc('callbacks'));
    // Worker: Temporal, both services, and what it needs to sign callback URLs.
    for (const v of [...temporalVars, ...serviceVars, ...workerVars, 'CALLBACK_PUBLIC_URL', 'CALLBACK_SECRET']) {
      expect(Object.keys(worker), `worker ${v}`).toContain(v);
    }
    // Receiver: Temporal (it signals workflows) and the callback settings; not the services' credentials.
    for (const v of [...temporalVars, ...callbackVars]) expect(Object.keys(callbacks), `callbacks ${v}`).toContain(v);
    for (const v of [...serviceVars, ...workerVars])
      expect(Object.keys(callbacks), `callbacks must not get ${v}`).not.toContain(v);
    // Together they cover the whole table.
    const both = new Set([...Object.keys(worker), ...Object.keys(callbacks)]);
    expect(DESIGN_VARIABLES.filter((v) => !both.has(v))).toEqual([]);

    for (const env of [worker, callbacks]) {
      expect(env.TEMPORAL_ADDRESS).toBe('temporal:7233');
      expect(env.TEMPORAL_NAMESPACE).toBe('${TEMPORAL_NAMESPACE:-default}');
      expect(env.TEMPORAL_TASK_QUEUE).toBe('${TEMPORAL_TASK_QUEUE:-video-generation}');
    }
    // The receiver listens on every interface of its container, on the published port.
    expect(callbacks.CALLBACK_HOST).toBe('0.0.0.0');
    expect(callbacks.CALLBACK_PORT).toBe('8787');
    // Defaults: the sandbox service on the compose network.
    expect(worker.VIDEO_API_BASE_URL).toBe('${VIDEO_API_BASE_URL:-http://sandbox:8081}');
    expect(worker.REVIEW_API_BASE_URL).toBe('${REVIEW_API_BASE_URL:-http://sandbox:8082}');
    expect(envOf(svc('sandbox'))).toMatchObject({
      SANDBOX_HOST: '0.0.0.0',
      SANDBOX_VIDEO_PORT: '8081',
      SANDBOX_REVIEW_PORT: '8082',
    });
    // The worker and the sandbox default to the same dev credentials.
    expect(worker.VIDEO_API_KEY).toBe('${VIDEO_API_KEY:-sandbox-video-key}');
    expect(worker.REVIEW_ACCESS_TOKEN).toBe('${REVIEW_ACCESS_TOKEN:-sandbox-review-token}');
    expect(envOf(svc('sandbox')).SANDBOX_API_KEY).toBe('${SANDBOX_API_KEY:-sandbox-video-key}');
    expect(envOf(svc('sandbox')).SANDBOX_ACCESS_TOKEN).toBe('${SANDBOX_ACCESS_TOKEN:-sandbox-review-token}');
    // Temporal's own namespace is the one the worker uses.
    expect(envOf(svc('temporal')).DEFAULT_NAMESPACE).toBe('${TEMPORAL_NAMESPACE:-default}');
    expect(envOf(svc('temporal-setup')).TEMPORAL_NAMESPACE).toBe('${TEMPORAL_NAMESPACE:-default}');
  });

  it('hands the worker and the receiver an environment that src/config.ts accepts, with the design defaults', () => {
    const worker = interpolatedEnv(svc('worker'), REQUIRED_SECRETS);
    const callbacks = interpolatedEnv(svc('callbacks'), REQUIRED_SECRETS);
    expect(loadTemporalConfig(worker)).toEqual({
      address: 'temporal:7233',
      namespace: 'default',
      taskQueue: 'video-generation',
    });
    expect(loadTemporalConfig(callbacks)).toEqual(loadTemporalConfig(worker));
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
    // Polling only by default; the receiver listens on 0.0.0.0:8787 inside its container.
    expect(loadCallbackConfig(worker).publicUrl).toBeUndefined();
    expect(loadCallbackConfig(callbacks)).toEqual({
      publicUrl: undefined,
      secret: REQUIRED_SECRETS.CALLBACK_SECRET,
      host: '0.0.0.0',
      port: 8787,
    });
    // Values from the user's environment win over the defaults.
    const custom = {
      ...REQUIRED_SECRETS,
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

  it('configures auto-setup for PostgreSQL', () => {
    const env = envOf(svc('temporal'));
    expect(env).toMatchObject({ DB: 'postgres12', DB_PORT: '5432', POSTGRES_SEEDS: 'postgresql' });
    expect(env.POSTGRES_USER).toBe(envOf(svc('postgresql')).POSTGRES_USER);
    expect(env.POSTGRES_PWD).toBe(envOf(svc('postgresql')).POSTGRES_PASSWORD);
  });

  it('writes no secret value except the sandbox dev credentials; required secrets fail loudly when unset', () => {
    for (const [name, s] of Object.entries(services)) {
      for (const [key, value] of Object.entries(envOf(s))) {
        if (!SECRET_NAME.test(key)) continue;
        // Every secret is an interpolation of one variable: `${VAR:?message}` or `${VAR:-default}`.
        const m = /^\$\{([A-Z0-9_]+)(?::([?-])(.*))?\}$/.exec(value);
        expect(m, `${name}.${key} must come from the environment, not be written: ${value}`).not.toBeNull();
        if (m![2] === '-') expect(SANDBOX_DEV_VALUES, `${name}.${key} default`).toContain(m![3]);
      }
    }
    // The two secrets without a safe default are required.
    expect(envOf(svc('postgresql')).POSTGRES_PASSWORD).toMatch(/^\$\{POSTGRES_PASSWORD:\?.+\}$/);
    expect(envOf(svc('temporal')).POSTGRES_PWD).toMatch(/^\$\{POSTGRES_PASSWORD:\?.+\}$/);
    for (const name of ['worker', 'callbacks']) {
      expect(envOf(svc(name)).CALLBACK_SECRET).toMatch(/^\$\{CALLBACK_SECRET:\?.+\}$/);
    }
    // The dev credentials appear nowhere else in the file (each once in the worker, once in the sandbox).
    for (const v of SANDBOX_DEV_VALUES) expect(composeText.split(v).length - 1, v).toBe(2);
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
    const registered = [...script.matchAll(/^\s*create\s+(\S+)\s+(\S+)\s*$/gm)].map((m) => ({
      name: m[1],
      type: m[2],
    }));
    // CLI type names -> the SDK's SearchAttributeType values.
    const cliType: Record<string, string> = {
      Keyword: 'KEYWORD',
      KeywordList: 'KEYWORD_LIST',
      Text: 'TEXT',
      Int: 'INT',
      Double: 'DOUBLE',
      Bool: 'BOOL',
      Datetime: 'DATETIME',
    };
    const byName = (a: { name?: string }, b: { name?: string }) => String(a.name).localeCompare(String(b.name));
    expect(registered.map((r) => ({ name: r.name, type: cliType[r.type!] ?? r.type })).sort(byName)).toEqual(
      allSearchAttributes.map((k) => ({ name: k.name, type: k.type })).sort(byName),
    );
    expect(script).toMatch(
      /temporal operator search-attribute create --address "\$\$addr" --namespace "\$\$ns" --name "\$\$1" --type "\$\$2"/,
    );
    expect(envOf(setup).TEMPORAL_ADDRESS).toBe('temporal:7233');
    expect(script).toMatch(/already exists/); // a second `up` must succeed
    expect(script).toMatch(/temporal operator namespace describe/); // waits for auto-setup's namespace

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

  it('builds dist/ with tsc in a node:20-bookworm-slim build stage', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    for (const stage of stages) expect(stage[0]).toMatch(/^FROM node:20-bookworm-slim AS \w+$/);
    const build = stages[0]!;
    expect(build).toContain('RUN --mount=type=cache,target=/root/.npm npm ci --no-audit --no-fund');
    expect(build).toContain('RUN npm run build');
    const pkg = JSON.parse(read('package.json')) as { scripts: Record<string, string> };
    expect(pkg.scripts.build).toMatch(/(^|&& )tsc -p tsconfig.build.json$/);
    expect(tsconfigBuild().outDir).toBe('dist');
    expect(build).toContain('COPY tsconfig.json tsconfig.build.json ./');
    expect(build).toContain('COPY src ./src');
  });

  it('runs production dependencies and dist/ as a non-root user', () => {
    const runtime = stages.at(-1)!;
    const name = /AS (\w+)$/.exec(stages[0]![0]!)![1];
    expect(runtime.some((l) => /^RUN .*npm ci --omit=dev\b/.test(l))).toBe(true);
    expect(runtime).toContain(`COPY --from=${name} /app/dist ./dist`);
    const users = runtime.filter((l) => /^USER\s/i.test(l));
    expect(users.length).toBeGreaterThan(0);
    const user = users.at(-1)!.split(/\s+/)[1]!;
    expect(['root', '0', '0:0']).not.toContain(user);
    // Nothing runs as root after the switch, and the default command is the worker.
    const after = runtime.slice(runtime.lastIndexOf(users.at(-1)!) + 1);
    expect(after.filter((l) => /^RUN\s/i.test(l))).toEqual([]);
    expect(runtime.at(-1)).toBe('CMD ["node", "dist/worker.js"]');
  });
});

function tsconfigBuild(): { outDir: string; exclude: string[] } {
  const c = JSON.parse(read('tsconfig.build.json')) as { compilerOptions?: { outDir?: string }; exclude?: string[] };
  return { outDir: String(c.compilerOptions?.outDir), exclude: c.exclude ?? [] };
}
