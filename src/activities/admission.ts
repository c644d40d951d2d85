// How activities reach a quota key's AdmissionGate (src/workflows/admission/gate.ts): signal-with-start,
// which workflow code cannot do. Two callers:
// - the video create and the review submit (review-then-generate.ts), where the worker limits the
//   provider's tasks: it asks for the run's slot instead of sending, and tells the gate when the provider
//   refused a granted one (429);
// - rtgAcquireSlot, for workflows that ask by themselves (src/workflows/admission/requester.ts).
// Retried safely: the gate ignores a request id it already has, and a refusal of a slot it no longer holds.
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { Client } from '@temporalio/client';
import {
  acquireSlotSignal,
  admissionGateId,
  slotRefusedSignal,
  type AdmissionActivities,
  type AdmissionAsk,
  type AdmissionGateInput,
  type GateLimits,
  type QuotaWait,
  type ServiceEvidence,
  type SlotAsk,
} from '../contract/index.js';
import type { ReviewAdmissionSettings, VideoAdmissionSettings } from '../config-admission.js';

/** A gate with only per-model limits still needs a capacity: one no account reaches. */
const NO_LIMIT = 1_000_000;

export interface AdmissionActivityDependencies {
  client: Client;
  /** Where the gate runs; by default the task queue of the activity (a worker with the package's workflows). */
  taskQueue?: string;
}

/** Signals the request to the gate of `gate.key`, starting the gate with `gate` first if it is not running. */
async function signalGate(client: Client, taskQueue: string, gate: AdmissionGateInput, ask: SlotAsk): Promise<void> {
  await client.workflow.signalWithStart('AdmissionGate', {
    workflowId: admissionGateId(gate.key),
    taskQueue,
    args: [gate],
    signal: acquireSlotSignal,
    signalArgs: [ask],
  });
}

/**
 * The video limits that apply to a create of `model` for `tenant`; undefined when none does (create at
 * once): no account or model cap applies, and the tenant has no daily budget.
 */
export function videoLimitsFor(
  settings: VideoAdmissionSettings | undefined,
  model: string,
  tenant: string | undefined,
): GateLimits | undefined {
  if (!settings) return undefined;
  const { maxTasksInFlight, maxCreatesPerMinute, createsWindowMs, byModel, budgets } = settings;
  const budgeted = tenant !== undefined && budgets?.[tenant] !== undefined;
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

/** What a gate's settings and a create's or submit's own details add to the run's ask. */
export interface SlotWanted {
  settings: Pick<VideoAdmissionSettings, 'key' | 'leaseMs' | 'tenantWeights'>;
  limits: GateLimits;
  /** The per-model group the slot also counts against (video). */
  group?: string | undefined;
  /** Seconds of video, against a tenant's daily budget. */
  seconds?: number | undefined;
}

/** Asks, for the run of the current activity, a slot of the gate `wanted.settings.key`. */
export async function askForSlot(wanted: SlotWanted, ask: AdmissionAsk): Promise<void> {
  const { settings, limits, group, seconds } = wanted;
  const ctx = Context.current();
  const run = ctx.info.workflowExecution;
  if (!run)
    throw new Error('a create or submit with a quota must run as a workflow activity (the grant goes to its run)');
  const { workflowId, runId } = run;
  const gate: AdmissionGateInput = {
    key: settings.key,
    ...limits,
    ...(settings.leaseMs !== undefined ? { leaseMs: settings.leaseMs } : {}),
  };
  const weight = ask.fairnessKey !== undefined ? settings.tenantWeights?.[ask.fairnessKey] : undefined;
  await signalGate(ctx.client, ctx.info.taskQueue, gate, {
    requestId: ask.requestId,
    workflowId,
    runId,
    ...(ask.priority !== undefined ? { priority: ask.priority } : {}),
    ...(ask.fairnessKey !== undefined ? { fairnessKey: ask.fairnessKey } : {}),
    ...(weight !== undefined ? { weight } : {}),
    ...(group !== undefined ? { group } : {}),
    ...(seconds !== undefined ? { seconds } : {}),
    ...(ask.onBudgetExceeded !== undefined ? { onBudgetExceeded: ask.onBudgetExceeded } : {}),
    limits,
  });
}

/** The evidence of a create or submit the provider refused for its quota (429, nothing made), if `err` is one. */
function quotaRefusal(err: unknown): ServiceEvidence | undefined {
  if (!(err instanceof ApplicationFailure)) return undefined;
  const evidence = err.details?.[0] as ServiceEvidence | undefined;
  return evidence?.status === 429 ? evidence : undefined;
}

/**
 * A create or submit where the worker limits the provider's tasks (`wanted`, undefined when no limit
 * applies): an ask not yet granted is queued at the gate and nothing is sent; a granted one is sent, and
 * a 429 for it gives the slot back and answers `refused` (back-pressure, not a failed attempt).
 */
export async function sendWithinQuota<T>(
  wanted: SlotWanted | undefined,
  ask: AdmissionAsk | undefined,
  send: () => Promise<T>,
): Promise<T | QuotaWait> {
  if (wanted && ask && !ask.granted) {
    await askForSlot(wanted, ask);
    return { queued: { key: wanted.settings.key, requestId: ask.requestId } };
  }
  try {
    return await send();
  } catch (err) {
    const refusal = wanted && ask?.granted ? quotaRefusal(err) : undefined;
    if (!wanted || !ask || !refusal) throw err;
    const { key } = wanted.settings;
    await reportRefusal(key, ask.requestId, refusal.retryAfterMs);
    const { retryAfterMs } = refusal;
    return {
      refused: {
        key,
        requestId: ask.requestId,
        ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
        message: (err as Error).message,
      },
    };
  }
}

/** The provider refused a granted create for its quota: the gate takes the slot back (back-pressure). */
async function reportRefusal(key: string, requestId: string, retryAfterMs: number | undefined): Promise<void> {
  await Context.current()
    .client.workflow.getHandle(admissionGateId(key))
    .signal(slotRefusedSignal, { requestId, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) });
}

export function createAdmissionActivities(deps: AdmissionActivityDependencies): AdmissionActivities {
  return {
    async rtgAcquireSlot(input) {
      await signalGate(
        deps.client,
        deps.taskQueue ?? Context.current().info.taskQueue,
        {
          key: input.key,
          capacity: input.capacity,
          ...(input.leaseMs !== undefined ? { leaseMs: input.leaseMs } : {}),
        },
        input.request,
      );
    },
  };
}
