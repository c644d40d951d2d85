// Which limits of the worker's settings apply to one create or submit (docs/operations.md, "Provider
// quotas"): the gate it asks and what its ask carries. Pure functions of the settings.
import { invalidRunInput, type GateLimits } from '../contract/index.js';
import type { ReviewAdmissionSettings, VideoAdmissionSettings } from '../config/admission.js';
import { DEFAULT_FAIRNESS_KEY } from '../model/priority.js';
import { formatIssues, type ValidationIssue } from '../model/validation.js';
import { billedSecondsOf, type VideoCreateKind } from '../model/video/billed-seconds.js';

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

/** A video create as the activity receives it: which create, its body, and the body's field in the input. */
export interface VideoCreateRequest {
  kind: VideoCreateKind;
  body: Readonly<Record<string, unknown>>;
  /** Where the body is in the workflow's input (`task` of ReviewThenGenerate, `body` of GenerateAndPoll). */
  field: 'task' | 'body';
}

/**
 * The video gate a create asks, for `tenant`, where a limit applies to it (undefined: create at once). Its
 * seconds (billed-seconds.ts, the same reading for every entry point) spend the tenant's daily budget in
 * seconds; where the gate would charge such a budget (the tenant's, or `default`'s for a job that names
 * none) and the body does not say them, it throws InvalidInput naming the field: the spec documents no
 * default length, and a cost that cannot be known is never admitted as 0.
 */
export function videoSlotFor(
  settings: VideoAdmissionSettings | undefined,
  tenant: string | undefined,
  create: VideoCreateRequest,
): SlotWanted | undefined {
  const model = String(create.body.model ?? '');
  const limits = videoLimitsFor(settings, model, tenant);
  if (!settings || !limits) return undefined;
  const problem = unchargeableLength(settings, tenant, create);
  if (problem) throw invalidRunInput(formatIssues([problem]), [problem]);
  const billed = billedSecondsOf(create.kind, create.body);
  return {
    settings,
    limits,
    group: settings.byModel[model] !== undefined ? model : undefined,
    seconds: 'seconds' in billed ? billed.seconds : undefined,
  };
}

/**
 * Why a create cannot be charged, or undefined: it does not say its length where the tenant the gate would
 * charge (its own, or `default`'s for a job that names none) has a daily budget in seconds. Asked by the
 * create's own activity and, for ReviewThenGenerate, by the job's start check (job-needs.ts), so the job
 * is refused before its review is paid for.
 */
export function unchargeableLength(
  settings: VideoAdmissionSettings | undefined,
  tenant: string | undefined,
  create: VideoCreateRequest,
): ValidationIssue | undefined {
  const charged = tenant ?? DEFAULT_FAIRNESS_KEY;
  const budget = settings?.budgets?.[charged]?.seconds;
  const billed = billedSecondsOf(create.kind, create.body);
  if (budget === undefined || !('unknown' in billed)) return undefined;
  return {
    field: `${create.field}.${billed.unknown}`,
    rule: `is required: tenant ${charged} has a daily budget in seconds of video (${budget} s, VIDEO_DAILY_SECONDS_BY_TENANT), and a create that does not say its length as a positive number of seconds cannot be charged`,
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
