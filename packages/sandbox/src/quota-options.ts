// The quota options checked (at start, by setQuotas, by POST /__sandbox/quotas) and read from the
// standalone sandbox's environment. A limit is an integer >= 0 (0 refuses every create); unknown fields
// are refused, so a misspelt limit is an error rather than no limit.
import { z } from 'zod';
import type { QuotaOptions, QuotaRetryAfter, QuotaUpdate } from './types.js';
import { describeIssues, fieldPath } from './validation.js';

const limit = z.number().int().min(0);
const byModel = z.record(z.string().min(1), limit);
const retryAfter = z.union([z.literal('computed'), z.literal('none'), z.number().int().min(0)]);

/** Every field optional; `null` removes a limit (run-time updates). */
export const quotaUpdateSchema = z.strictObject({
  videoMaxTasksInFlight: limit.nullable().optional(),
  videoMaxTasksInFlightByModel: byModel.nullable().optional(),
  videoMaxCreatesPerMinute: limit.nullable().optional(),
  videoMaxCreatesPerMinuteByModel: byModel.nullable().optional(),
  videoQuotaRetryAfter: retryAfter.nullable().optional(),
  reviewMaxTasksInFlight: limit.nullable().optional(),
  reviewMaxSubmitsPerMinute: limit.nullable().optional(),
  reviewQuotaRetryAfter: retryAfter.nullable().optional(),
  quotaWindowMs: z.number().int().min(1).nullable().optional(),
});

const QUOTA_KEYS = Object.keys(quotaUpdateSchema.shape) as Array<keyof QuotaOptions>;

/** The quota fields of the sandbox options, checked; throws naming every bad field. */
export function quotaOptionsOf(options: QuotaOptions): QuotaOptions {
  const picked: Record<string, unknown> = {};
  for (const k of QUOTA_KEYS) if (options[k] !== undefined) picked[k] = options[k];
  return checkQuotaUpdate(picked) as QuotaOptions;
}

export function checkQuotaUpdate(update: unknown): QuotaUpdate {
  const r = quotaUpdateSchema.safeParse(update);
  if (r.success) return r.data;
  const issues = r.error.issues.map((i) => ({ field: fieldPath(i.path), rule: i.message }));
  throw new Error(`bad sandbox quota: ${describeIssues(issues)}`);
}

/** `model-a:2,model-b:1` (the form of the workers' VIDEO_MAX_TASKS_IN_FLIGHT_BY_MODEL). */
export function parseModelLimits(name: string, raw: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const part of raw.split(',').map((p) => p.trim())) {
    if (part === '') continue;
    const at = part.lastIndexOf(':');
    const model = part.slice(0, at).trim();
    const n = Number(part.slice(at + 1));
    if (at <= 0 || model === '' || !Number.isInteger(n) || n < 0) {
      throw new Error(`${name} must read model:limit[,model:limit...] with integer limits >= 0 (got '${raw}')`);
    }
    out[model] = n;
  }
  return out;
}

/** `computed`, `none`, or whole seconds. */
export function parseQuotaRetryAfter(name: string, raw: string): QuotaRetryAfter {
  const v = raw.trim().toLowerCase();
  if (v === 'computed' || v === 'none') return v;
  if (/^\d+$/.test(v)) return Number(v);
  throw new Error(`${name} must be computed, none or whole seconds (got '${raw}')`);
}
