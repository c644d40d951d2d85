// Which limits of the worker's settings apply to one create or submit (docs/operations.md, "Provider
// quotas"): the gate it asks and what its ask carries. Pure functions of the settings.
import { DEFAULT_FAIRNESS_KEY, type GateLimits } from '../contract/index.js';
import type { ReviewAdmissionSettings, VideoAdmissionSettings } from '../config-admission.js';

/** A gate with only per-model limits still needs a capacity: one no account reaches. */
const NO_LIMIT = 1_000_000;

/**
 * The video limits that apply to a create of `model` for `tenant`; undefined when none does (create at
 * once): no account or model cap applies, and the tenant has no daily budget. A create without a tenant
 * (every GenerateAndPoll's) is the gate's `default` tenant, charged to its budget like any other.
 */
export function videoLimitsFor(
  settings: VideoAdmissionSettings | undefined,
  model: string,
  tenant: string | undefined,
): GateLimits | undefined {
  if (!settings) return undefined;
  const { maxTasksInFlight, maxCreatesPerMinute, createsWindowMs, byModel, budgets } = settings;
  const budgeted = budgets?.[tenant ?? DEFAULT_FAIRNESS_KEY] !== undefined;
  if (maxTasksInFlight === undefined && maxCreatesPerMinute === undefined && byModel[model] === undefined && !budgeted)
    return undefined;
  return {
    capacity: maxTasksInFlight ?? NO_LIMIT,
    ...(Object.keys(byModel).length > 0 ? { groups: byModel } : {}),
    ...(maxCreatesPerMinute !== undefined
      ? {
          rate: { limit: maxCreatesPerMinute, ...(createsWindowMs !== undefined ? { windowMs: createsWindowMs } : {}) },
        }
      : {}),
    ...(budgets !== undefined ? { budgets } : {}),
  };
}

/** The review limits; undefined when none applies (submit at once). One review task is one slot. */
export function reviewLimitsFor(settings: ReviewAdmissionSettings | undefined): GateLimits | undefined {
  if (!settings || (settings.maxTasksInFlight === undefined && settings.maxSubmitsPerMinute === undefined))
    return undefined;
  const { maxSubmitsPerMinute: limit, submitsWindowMs: windowMs } = settings;
  return {
    capacity: settings.maxTasksInFlight ?? NO_LIMIT,
    ...(limit !== undefined ? { rate: { limit, ...(windowMs !== undefined ? { windowMs } : {}) } } : {}),
  };
}

/**
 * The video gate a create of `model` asks, for `tenant`, where a limit applies to it (undefined: create at
 * once); `seconds` (the create's duration) spends a tenant's daily budget in seconds.
 */
export function videoSlotFor(
  settings: VideoAdmissionSettings | undefined,
  model: string,
  tenant: string | undefined,
  seconds: unknown,
): SlotWanted | undefined {
  const limits = videoLimitsFor(settings, model, tenant);
  if (!settings || !limits) return undefined;
  return {
    settings,
    limits,
    group: settings.byModel[model] !== undefined ? model : undefined,
    seconds: typeof seconds === 'number' ? seconds : undefined,
  };
}

/** What a gate's settings and a create's or submit's own details add to the run's ask. */
export interface SlotWanted {
  settings: Pick<VideoAdmissionSettings, 'key' | 'leaseMs' | 'tenantWeights'>;
  limits: GateLimits;
  /** The per-model group the slot also counts against (video). */
  group?: string | undefined;
  /** Seconds of video, against a tenant's daily budget. */
  seconds?: number | undefined;
}
