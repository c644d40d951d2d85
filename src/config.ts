// Environment -> typed configuration. Secrets (API key, access token, callback secret) live only here and
// in the clients built from it: never in workflow input, history, logs or error messages.
import { existsSync } from 'node:fs';
import { loadClientConfigProfile } from '@temporalio/envconfig';
import { z } from 'zod';
import { mixedBaseUrlsProblem } from './services/base-urls.js';
import type { ReviewServiceConfig, TemporalConfig, VideoServiceConfig, WorkerTuning } from './config-types.js';

/** The defaults of the design's configuration table: the schemas below and the explicit options read them. */
export const TEMPORAL_DEFAULTS = {
  address: 'localhost:7233',
  namespace: 'default',
  taskQueue: 'video-generation',
} as const;
/** The task queue of our standalone worker; in your own worker, use your own queue. */
export const DEFAULT_TASK_QUEUE = TEMPORAL_DEFAULTS.taskQueue;
/** VIDEO_CANCEL_METHOD, VIDEO_CANCEL_PATH, HTTP_TIMEOUT_MS and HTTP_MAX_CONNECTIONS (connections per service). */
export const SERVICE_DEFAULTS = {
  cancelMethod: 'POST',
  cancelPath: '/v1/task/cancel/{id}',
  timeoutMs: 30_000,
  connections: 32,
} as const;

/** CODEC_HOST, CODEC_PORT: where `npm run codec-server` listens (src/config-encryption.ts reads them). */
export const CODEC_SERVER_DEFAULTS = { host: '127.0.0.1', port: 8888 } as const;

export const nonEmpty = z.string().trim().min(1);
export const httpUrl = z
  .string()
  .trim()
  .url()
  .refine((u) => /^https?:\/\//i.test(u), 'must be an http(s) URL')
  .transform((u) => u.replace(/\/+$/, ''));
export const port = z.coerce.number().int().min(0).max(65535);
/** true/false/1/0 (any case); anything else is refused rather than read as false. */
const flag = z
  .string()
  .trim()
  .toLowerCase()
  .pipe(z.enum(['true', 'false', '1', '0'], { error: 'must be true, false, 1 or 0' }))
  .transform((v) => v === 'true' || v === '1');

/** One setting for the clients and the callback address: accept loopback/private/link-local addresses. */
export const allowPrivateUrls = flag.default(false);

export const temporalConfigSchema = z.object({
  TEMPORAL_ADDRESS: nonEmpty.default(TEMPORAL_DEFAULTS.address),
  TEMPORAL_NAMESPACE: nonEmpty.default(TEMPORAL_DEFAULTS.namespace),
  TEMPORAL_TASK_QUEUE: nonEmpty.default(TEMPORAL_DEFAULTS.taskQueue),
});

export const servicesConfigSchema = z.object({
  VIDEO_API_BASE_URL: httpUrl,
  VIDEO_API_KEY: nonEmpty,
  REVIEW_API_BASE_URL: httpUrl,
  REVIEW_ACCESS_TOKEN: nonEmpty,
  VIDEO_CANCEL_METHOD: z.enum(['POST', 'DELETE', 'PUT', 'PATCH', 'GET']).default(SERVICE_DEFAULTS.cancelMethod),
  VIDEO_CANCEL_PATH: z
    .string()
    .default(SERVICE_DEFAULTS.cancelPath)
    .refine((p) => p.startsWith('/') && p.includes('{id}'), 'must start with / and contain {id}'),
  HTTP_TIMEOUT_MS: z.coerce.number().int().positive().default(SERVICE_DEFAULTS.timeoutMs),
  /** Connections per service (one undici Pool each): at most this many requests to one service at once. */
  HTTP_MAX_CONNECTIONS: z.coerce.number().int().min(1).max(1_024).default(SERVICE_DEFAULTS.connections),
});

/**
 * The worker's prebuilt workflow bundle (src/bundle-workflows.ts writes it and its variants), instead of
 * bundling at start. A path that names no file is refused at start rather than when the worker loads it.
 */
export const workflowBundleSchema = z.object({
  WORKFLOW_BUNDLE_PATH: z
    .string()
    .refine((p) => existsSync(p), 'names no file')
    .optional(),
});

/** Worker sizing; each unset variable keeps the SDK's default (BENCHMARKS.md shows what they change). */
export const workerTuningSchema = z
  .object({
    /** Sticky cache: workflows kept in memory between their tasks (default: sized from the budget below). */
    WORKER_MAX_CACHED_WORKFLOWS: z.coerce.number().int().min(2).max(1_000_000).optional(),
    /** RSS, MiB, the sticky cache is sized for when WORKER_MAX_CACHED_WORKFLOWS is unset (src/worker-cache.ts). */
    WORKER_MEMORY_BUDGET_MIB: z.coerce.number().int().min(64).max(1_048_576).optional(),
    /** Workflow tasks processed at once (SDK default 40). */
    WORKER_MAX_CONCURRENT_WORKFLOW_TASKS: z.coerce.number().int().min(2).max(10_000).optional(),
    /** Activities (HTTP calls) executing at once (SDK default 100). */
    WORKER_MAX_CONCURRENT_ACTIVITIES: z.coerce.number().int().min(1).max(10_000).optional(),
  })
  .superRefine((c, ctx) => {
    // The SDK would silently lower it; say so instead.
    if (
      c.WORKER_MAX_CACHED_WORKFLOWS !== undefined &&
      c.WORKER_MAX_CONCURRENT_WORKFLOW_TASKS !== undefined &&
      c.WORKER_MAX_CONCURRENT_WORKFLOW_TASKS > c.WORKER_MAX_CACHED_WORKFLOWS
    ) {
      ctx.addIssue({
        code: 'custom',
        path: ['WORKER_MAX_CONCURRENT_WORKFLOW_TASKS'],
        message: 'must not exceed WORKER_MAX_CACHED_WORKFLOWS',
      });
    }
  });

/** Versioning is off unless both are set; then a run stays on the build that started it (docs/upgrading.md). */
export const WORKER_DEPLOYMENT_DEFAULTS = { versioningBehavior: 'PINNED' } as const;
export const workerDeploymentSchema = z
  .object({
    TEMPORAL_DEPLOYMENT_NAME: nonEmpty.optional(),
    TEMPORAL_WORKER_BUILD_ID: nonEmpty.optional(),
    TEMPORAL_VERSIONING_BEHAVIOR: z.enum(['PINNED', 'AUTO_UPGRADE']).optional(),
  })
  .refine((c) => !c.TEMPORAL_DEPLOYMENT_NAME === !c.TEMPORAL_WORKER_BUILD_ID, {
    path: ['TEMPORAL_WORKER_BUILD_ID'],
    message: 'and TEMPORAL_DEPLOYMENT_NAME are set together, or neither (versioning off)',
  });

export type * from './config-types.js';

export class ConfigError extends Error {
  override name = 'ConfigError';
}

type Env = Record<string, string | undefined>;

/** Drops empty strings so that `FOO=` in a shell means "unset" and takes the default. */
function present(env: Env): Env {
  return Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
}

export function parse<T extends z.ZodType>(schema: T, env: Env): z.infer<T> {
  const r = schema.safeParse(present(env));
  if (!r.success) {
    // Name the variable and the rule, never the value (it may be a secret).
    const lines = r.error.issues.map((i) => `${i.path.join('.') || '(env)'} ${i.message}`);
    throw new ConfigError(`invalid configuration: ${lines.join('; ')}`);
  }
  return r.data;
}

/**
 * The address and namespace of the envconfig profile (TEMPORAL_PROFILE, else `default`, in
 * TEMPORAL_CONFIG_FILE or the default temporal.toml), read from the same variables the connection uses.
 */
function profileSettings(env: Env): { address?: string; namespace?: string } {
  const vars = Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined));
  try {
    // disableEnv: the file's values only; the variables are read by our own schema.
    const p = loadClientConfigProfile({ disableEnv: true, overrideEnvVars: vars });
    return { address: p.address?.trim() || undefined, namespace: p.namespace?.trim() || undefined };
  } catch (err) {
    // A TOML parser's message quotes the file, which may hold an API key: only the missing profile is named.
    const message = err instanceof Error ? err.message : '';
    const why = /^Profile '[^']*' not found/.test(message)
      ? message
      : 'the Temporal config file could not be read as TOML';
    throw new ConfigError(`invalid configuration: TEMPORAL_PROFILE / TEMPORAL_CONFIG_FILE: ${why}`);
  }
}

/** TEMPORAL_ADDRESS and TEMPORAL_NAMESPACE win; when unset, the temporal.toml profile's; else the defaults. */
export function loadTemporalConfig(env: Env = process.env): TemporalConfig {
  const c = parse(temporalConfigSchema, env);
  const set = present(env);
  const profile =
    set.TEMPORAL_ADDRESS !== undefined && set.TEMPORAL_NAMESPACE !== undefined ? {} : profileSettings(env);
  return {
    address: set.TEMPORAL_ADDRESS !== undefined ? c.TEMPORAL_ADDRESS : (profile.address ?? c.TEMPORAL_ADDRESS),
    namespace:
      set.TEMPORAL_NAMESPACE !== undefined ? c.TEMPORAL_NAMESPACE : (profile.namespace ?? c.TEMPORAL_NAMESPACE),
    taskQueue: c.TEMPORAL_TASK_QUEUE,
  };
}

/** ALLOW_PRIVATE_URLS (default false): the worker prints it at start. */
export function loadAllowPrivateUrls(env: Env = process.env): boolean {
  return parse(z.object({ ALLOW_PRIVATE_URLS: allowPrivateUrls }), env).ALLOW_PRIVATE_URLS;
}

export function loadServicesConfig(env: Env = process.env): { video: VideoServiceConfig; review: ReviewServiceConfig } {
  const c = parse(servicesConfigSchema, env);
  const allow = loadAllowPrivateUrls(env);
  const mixed = mixedBaseUrlsProblem(
    { field: 'VIDEO_API_BASE_URL', url: c.VIDEO_API_BASE_URL },
    { field: 'REVIEW_API_BASE_URL', url: c.REVIEW_API_BASE_URL },
  );
  if (mixed) throw new ConfigError(`invalid configuration: ${mixed}`);
  return {
    video: {
      baseUrl: c.VIDEO_API_BASE_URL,
      apiKey: c.VIDEO_API_KEY,
      cancelMethod: c.VIDEO_CANCEL_METHOD,
      cancelPath: c.VIDEO_CANCEL_PATH,
      timeoutMs: c.HTTP_TIMEOUT_MS,
      connections: c.HTTP_MAX_CONNECTIONS,
      allowPrivateUrls: allow,
    },
    review: {
      baseUrl: c.REVIEW_API_BASE_URL,
      accessToken: c.REVIEW_ACCESS_TOKEN,
      timeoutMs: c.HTTP_TIMEOUT_MS,
      connections: c.HTTP_MAX_CONNECTIONS,
      allowPrivateUrls: allow,
    },
  };
}

export function loadWorkerTuning(env: Env = process.env): WorkerTuning {
  const c = parse(workerTuningSchema, env);
  return {
    ...(c.WORKER_MAX_CACHED_WORKFLOWS !== undefined ? { maxCachedWorkflows: c.WORKER_MAX_CACHED_WORKFLOWS } : {}),
    ...(c.WORKER_MAX_CONCURRENT_WORKFLOW_TASKS !== undefined
      ? { maxConcurrentWorkflowTaskExecutions: c.WORKER_MAX_CONCURRENT_WORKFLOW_TASKS }
      : {}),
    ...(c.WORKER_MAX_CONCURRENT_ACTIVITIES !== undefined
      ? { maxConcurrentActivityTaskExecutions: c.WORKER_MAX_CONCURRENT_ACTIVITIES }
      : {}),
  };
}
