// How activities reach a quota key's AdmissionGate (src/workflows/admission/gate.ts): signal-with-start,
// which workflow code cannot do. Two callers:
// - the video create (review-then-generate.ts), where the worker limits tasks in flight: it asks for the
//   run's slot instead of creating, and tells the gate when the provider refused a granted create (429);
// - rtgAcquireSlot, for workflows that ask by themselves (src/workflows/admission/requester.ts).
// Retried safely: the gate ignores a request id it already has, and a refusal of a slot it no longer holds.
import { Context } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import {
  acquireSlotSignal,
  admissionGateId,
  slotRefusedSignal,
  type AdmissionActivities,
  type AdmissionAsk,
  type AdmissionGateInput,
  type GateLimits,
  type SlotAsk,
} from '../contract/index.js';
import type { VideoAdmissionSettings } from '../config-admission.js';

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

/** Asks, for the run of the current activity, a slot of the video gate for a create of `model`. */
export async function askForVideoSlot(
  settings: VideoAdmissionSettings,
  limits: GateLimits,
  ask: AdmissionAsk,
  model: string,
  seconds: number | undefined,
): Promise<void> {
  const ctx = Context.current();
  const run = ctx.info.workflowExecution;
  if (!run) throw new Error('a video create with a quota must run as a workflow activity (the grant goes to its run)');
  const { workflowId, runId } = run;
  const gate: AdmissionGateInput = {
    key: settings.key,
    ...limits,
    ...(settings.leaseMs !== undefined ? { leaseMs: settings.leaseMs } : {}),
  };
  await signalGate(ctx.client, ctx.info.taskQueue, gate, {
    requestId: ask.requestId,
    workflowId,
    runId,
    ...(ask.priority !== undefined ? { priority: ask.priority } : {}),
    ...(ask.fairnessKey !== undefined ? { fairnessKey: ask.fairnessKey } : {}),
    ...(ask.fairnessKey !== undefined && settings.tenantWeights?.[ask.fairnessKey] !== undefined
      ? { weight: settings.tenantWeights[ask.fairnessKey] }
      : {}),
    ...(settings.byModel[model] !== undefined ? { group: model } : {}),
    ...(seconds !== undefined ? { seconds } : {}),
    ...(ask.onBudgetExceeded !== undefined ? { onBudgetExceeded: ask.onBudgetExceeded } : {}),
    limits,
  });
}

/** The provider refused a granted create for its quota: the gate takes the slot back (back-pressure). */
export async function reportRefusal(key: string, requestId: string, retryAfterMs: number | undefined): Promise<void> {
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
