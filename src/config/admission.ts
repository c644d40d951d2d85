// The worker's admission variables (issue 26, docs/operations.md "Provider quotas"), read through
// env.ts: how many video tasks the provider account may have in flight, in all and per model, and how many
// creates it takes per minute; how many review tasks, and review submits per minute. Unset means no
// limit: the create or submit is sent at once, as before. Where a limit applies, the create or submit
// activity asks the key's AdmissionGate for a slot first (src/activities/admission.ts).
import { z } from 'zod';
import { ConfigError, nonEmpty, parse, type Env } from './env.js';
import type { TenantBudget } from '../contract/admission.js';

/** The video service's limits as this worker is configured; one gate per `key` enforces them for all workers. */
export interface VideoAdmissionSettings {
  /** The gate's key: `video@` and the provider account (VIDEO_QUOTA_ACCOUNT, default the host of VIDEO_API_BASE_URL). */
  key: string;
  /** Tasks in flight at once, all models together; undefined = only the per-model limits. */
  maxTasksInFlight?: number | undefined;
  /** Tasks in flight at once per model; a model not listed counts only against `maxTasksInFlight`. */
  byModel: Record<string, number>;
  /** Creates sent per minute, all models together; undefined = no such limit. */
  maxCreatesPerMinute?: number | undefined;
  /** The window of `maxCreatesPerMinute` (60 s; shorter only for tests, not read from the environment). */
  createsWindowMs?: number | undefined;
  /** How long a slot is held before the gate checks its run still exists (ms). */
  leaseMs?: number | undefined;
  /** Tenants' weights (fairnessKey → weight, default 1): a weight-2 tenant holds twice the slots. */
  tenantWeights?: Record<string, number> | undefined;
  /** Daily budgets by tenant (fairnessKey): tasks and seconds of video per UTC day. */
  budgets?: Record<string, TenantBudget> | undefined;
}

/** The review service's limits: one gate per `key`, for all workers. */
export interface ReviewAdmissionSettings {
  /** The gate's key: `review@` and the account (REVIEW_QUOTA_ACCOUNT, default the host of REVIEW_API_BASE_URL). */
  key: string;
  /** Review tasks in flight at once (each submitted batch is one task, sync or async). */
  maxTasksInFlight?: number | undefined;
  /** Submits sent per minute. */
  maxSubmitsPerMinute?: number | undefined;
  /** The window of `maxSubmitsPerMinute` (60 s; shorter only for tests, not read from the environment). */
  submitsWindowMs?: number | undefined;
  leaseMs?: number | undefined;
  tenantWeights?: Record<string, number> | undefined;
}

export interface AdmissionSettings {
  video?: VideoAdmissionSettings | undefined;
  review?: ReviewAdmissionSettings | undefined;
}

const positiveInt = z.coerce.number().int().min(1).max(1_000_000);

/** `model-a:5,model-b:2` → `{ 'model-a': 5, 'model-b': 2 }`; the problem as a message, naming the entry. */
export function parseModelLimits(text: string): Record<string, number> | string {
  return parseNamedNumbers(text, 'model', 'limit', (n) => Number.isInteger(n) && n >= 1, 'a whole limit of at least 1');
}

/** `tenant-a:500,tenant-b:20` → whole budgets of at least 1 (tasks, or seconds of video, per UTC day). */
export function parseTenantBudgets(text: string): Record<string, number> | string {
  return parseNamedNumbers(
    text,
    'tenant',
    'budget',
    (n) => Number.isInteger(n) && n >= 1,
    'a whole budget of at least 1',
  );
}

/** `tenant-a:2,tenant-b:0.5` → weights between 0.001 and 1000 (Temporal's range for fairness weights). */
export function parseTenantWeights(text: string): Record<string, number> | string {
  return parseNamedNumbers(text, 'tenant', 'weight', (n) => n >= 0.001 && n <= 1000, 'a weight from 0.001 to 1000');
}

function parseNamedNumbers(
  text: string,
  name: string,
  value: string,
  valid: (n: number) => boolean,
  rule: string,
): Record<string, number> | string {
  const parsed: Record<string, number> = {};
  for (const [i, entry] of text.split(',').entries()) {
    const at = entry.lastIndexOf(':');
    const key = entry.slice(0, at).trim();
    const n = Number(entry.slice(at + 1).trim());
    if (at <= 0 || key === '') return `entry ${i + 1} must be ${name}:${value} (${name}-a:5,${name}-b:2)`;
    if (!Number.isFinite(n) || !valid(n)) return `entry ${i + 1} (${key}) must have ${rule}`;
    if (key in parsed) return `entry ${i + 1} repeats the ${name} ${key}`;
    parsed[key] = n;
  }
  return parsed;
}

/** A zod transform of one such list, its problem reported on the variable. */
const namedNumbers = (parse: (text: string) => Record<string, number> | string) =>
  z.string().transform((text, ctx) => {
    const parsed = parse(text);
    if (typeof parsed === 'string') {
      ctx.addIssue({ code: 'custom', message: parsed });
      return z.NEVER;
    }
    return parsed;
  });

/** An account name ends its gate's workflow id: one printable token, to be typed in `temporal workflow query`. */
const quotaAccount = nonEmpty.max(200).regex(/^[^\s\p{C}]+$/u, 'must be printable characters without spaces');

export const admissionConfigSchema = z.object({
  VIDEO_MAX_TASKS_IN_FLIGHT: positiveInt.optional(),
  VIDEO_MAX_TASKS_IN_FLIGHT_BY_MODEL: namedNumbers(parseModelLimits).optional(),
  VIDEO_MAX_CREATES_PER_MINUTE: positiveInt.optional(),
  VIDEO_QUOTA_ACCOUNT: quotaAccount.optional(),
  REVIEW_MAX_TASKS_IN_FLIGHT: positiveInt.optional(),
  REVIEW_MAX_SUBMITS_PER_MINUTE: positiveInt.optional(),
  // Named when one host serves two review accounts, or two hosts (a proxy) reach one.
  REVIEW_QUOTA_ACCOUNT: quotaAccount.optional(),
  ADMISSION_TENANT_WEIGHTS: namedNumbers(parseTenantWeights).optional(),
  VIDEO_DAILY_TASKS_BY_TENANT: namedNumbers(parseTenantBudgets).optional(),
  VIDEO_DAILY_SECONDS_BY_TENANT: namedNumbers(parseTenantBudgets).optional(),
  ADMISSION_LEASE_MS: z.coerce
    .number()
    .int()
    .min(5_000)
    .max(24 * 3_600_000)
    .optional(),
});

/** The quota key of a provider account: its host, so that two services on one namespace never share a gate. */
export function defaultQuotaKey(service: 'video' | 'review', baseUrl: string): string {
  try {
    return `${service}@${new URL(baseUrl).host.toLowerCase()}`;
  } catch {
    const variable = service === 'video' ? 'VIDEO_API_BASE_URL' : 'REVIEW_API_BASE_URL';
    throw new ConfigError(`invalid configuration: ${variable} must be a URL to name the quota key`);
  }
}

export const defaultVideoQuotaKey = (videoBaseUrl: string): string => defaultQuotaKey('video', videoBaseUrl);

/**
 * Reads the VIDEO_*, REVIEW_* and ADMISSION_* quota variables; throws ConfigError naming the variable.
 * `baseUrls` name the default quota keys (the services' hosts).
 */
export function loadAdmissionConfig(env: Env, baseUrls: { video: string; review: string }): AdmissionSettings {
  const c = parse(admissionConfigSchema, env);
  return {
    ...videoSettings(c, baseUrls.video),
    ...(c.REVIEW_MAX_TASKS_IN_FLIGHT !== undefined || c.REVIEW_MAX_SUBMITS_PER_MINUTE !== undefined
      ? {
          review: {
            key:
              c.REVIEW_QUOTA_ACCOUNT !== undefined
                ? `review@${c.REVIEW_QUOTA_ACCOUNT}`
                : defaultQuotaKey('review', baseUrls.review),
            maxTasksInFlight: c.REVIEW_MAX_TASKS_IN_FLIGHT,
            maxSubmitsPerMinute: c.REVIEW_MAX_SUBMITS_PER_MINUTE,
            leaseMs: c.ADMISSION_LEASE_MS,
            tenantWeights: c.ADMISSION_TENANT_WEIGHTS,
          },
        }
      : {}),
  };
}

function videoSettings(c: z.infer<typeof admissionConfigSchema>, videoBaseUrl: string): AdmissionSettings {
  const byModel = c.VIDEO_MAX_TASKS_IN_FLIGHT_BY_MODEL ?? {};
  const budgets: Record<string, TenantBudget> = {};
  for (const [tenant, tasks] of Object.entries(c.VIDEO_DAILY_TASKS_BY_TENANT ?? {})) budgets[tenant] = { tasks };
  for (const [tenant, seconds] of Object.entries(c.VIDEO_DAILY_SECONDS_BY_TENANT ?? {}))
    budgets[tenant] = { ...budgets[tenant], seconds };
  if (
    c.VIDEO_MAX_TASKS_IN_FLIGHT === undefined &&
    c.VIDEO_MAX_CREATES_PER_MINUTE === undefined &&
    Object.keys(byModel).length === 0 &&
    Object.keys(budgets).length === 0
  )
    return {};
  return {
    video: {
      key: c.VIDEO_QUOTA_ACCOUNT !== undefined ? `video@${c.VIDEO_QUOTA_ACCOUNT}` : defaultVideoQuotaKey(videoBaseUrl),
      maxTasksInFlight: c.VIDEO_MAX_TASKS_IN_FLIGHT,
      byModel,
      maxCreatesPerMinute: c.VIDEO_MAX_CREATES_PER_MINUTE,
      leaseMs: c.ADMISSION_LEASE_MS,
      tenantWeights: c.ADMISSION_TENANT_WEIGHTS,
      ...(Object.keys(budgets).length > 0 ? { budgets } : {}),
    },
  };
}
