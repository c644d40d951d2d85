// How activities reach a quota key's AdmissionGate (src/workflows/admission/gate.ts), starting it when it
// is not running, which workflow code cannot do. The callers: the video creates (review-then-generate.ts,
// gateway.ts) and the review submit, where the worker limits the provider's tasks; they ask for the run's
// slot with update-with-start. A free slot is granted in the answer and the run sends in its next attempt
// (ask, that attempt and release: 3 billable actions); otherwise nothing is sent and the run waits for the
// gate's grant signal. In a burst (more than MAX_ASKS_AT_ONCE asks from this process, or no answer within
// ASK_AT_ONCE_DEADLINE_MS) the ask is signalled instead. They tell the gate when the provider refused a
// granted call (429).
// Retried safely: the gate ignores a request id it already has (and answers `granted` again to one that
// holds its slot), and a refusal of a slot it no longer holds.
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { WithStartWorkflowOperation, WorkflowNotFoundError, type Client } from '@temporalio/client';
import {
  acquireSlotNowUpdate,
  acquireSlotSignal,
  admissionGateId,
  grantIdOf,
  releaseSlotSignal,
  slotRelease,
  slotRefusedSignal,
  type AdmissionAsk,
  type AdmissionGateInput,
  type HeldQuotaSlot,
  type QuotaAnswer,
  type ServiceEvidence,
  type SlotAsk,
} from '../contract/index.js';
import type { SlotWanted } from './admission-limits.js';

/**
 * How long an ask waits for the gate's answer before it is signalled instead. Answered in one workflow
 * task of the gate when it is free to take it; Temporal refuses more than a few updates in flight to one
 * workflow (the client then backs off for a second or more), so a burst of asks falls back to signals.
 */
const ASK_AT_ONCE_DEADLINE_MS = 3_000;

/**
 * Asks by update in flight from this worker process, by gate key. Past MAX_ASKS_AT_ONCE an ask is
 * signalled at once: in a burst (1,000 jobs started together) updates would only meet Temporal's limit of
 * 10 in flight per workflow and back off, delaying every grant. A hint for choosing the path, never a
 * rule: both paths are correct, the signal's only cost is the grant signal that follows.
 */
const asksAtOnce = new Map<string, number>();
const MAX_ASKS_AT_ONCE = 3;

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
 * Asks, for the run of the current activity, a slot of the gate `wanted.settings.key` (starting the gate
 * if needed); which grant (grantIdOf) when the gate granted it at once, else undefined.
 */
export async function askForSlot(
  wanted: SlotWanted,
  ask: AdmissionAsk,
): Promise<{ grant: string; sendBy?: number } | undefined> {
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
  const slotAsk: SlotAsk = {
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
  };
  const asking = asksAtOnce.get(settings.key) ?? 0;
  if (asking >= MAX_ASKS_AT_ONCE) {
    await signalGate(ctx.client, ctx.info.taskQueue, gate, slotAsk);
    return undefined;
  }
  asksAtOnce.set(settings.key, asking + 1);
  try {
    const answer = await ctx.client.withDeadline(Date.now() + ASK_AT_ONCE_DEADLINE_MS, () =>
      ctx.client.workflow.executeUpdateWithStart(acquireSlotNowUpdate, {
        args: [slotAsk],
        startWorkflowOperation: new WithStartWorkflowOperation('AdmissionGate', {
          workflowId: admissionGateId(settings.key),
          taskQueue: ctx.info.taskQueue,
          args: [gate],
          workflowIdConflictPolicy: 'USE_EXISTING',
        }),
      }),
    );
    if (!answer.granted) return undefined;
    return { grant: grantIdOf(answer), ...(answer.sendBy !== undefined ? { sendBy: answer.sendBy } : {}) };
  } catch {
    // Throttled (a burst of asks: Temporal admits few updates to one workflow at a time), or slow: the
    // ask is signalled instead, and the run waits for the grant. If the update did reach the gate and
    // granted the slot, the gate tells the run when this signal arrives.
    await signalGate(ctx.client, ctx.info.taskQueue, gate, slotAsk);
    return undefined;
  } finally {
    asksAtOnce.set(settings.key, (asksAtOnce.get(settings.key) ?? 1) - 1);
  }
}

/** The evidence of a create or submit the provider refused for its quota (429, nothing made), if `err` is one. */
function quotaRefusal(err: unknown): ServiceEvidence | undefined {
  if (!(err instanceof ApplicationFailure)) return undefined;
  const evidence = err.details?.[0] as ServiceEvidence | undefined;
  // A final 429 (a billing stop such as OpenAI's insufficient_quota) is no back-pressure: it fails.
  return evidence?.status === 429 && !err.nonRetryable ? evidence : undefined;
}

/**
 * A create or submit where the worker limits the provider's tasks (`wanted`, undefined when no limit
 * applies). An ask not yet granted goes to the gate and nothing is sent in this attempt: granted at once
 * it answers `admitted` (the run sends in its next attempt), else `queued`. Never both in one attempt, so
 * that a retried attempt after a lost one knows it may have sent only when it was granted. A granted call
 * is sent; a 429 for it gives the slot back and answers `refused` (back-pressure, not a failed attempt).
 */
export async function sendWithinQuota<T>(
  wanted: SlotWanted | undefined,
  ask: AdmissionAsk | undefined,
  send: () => Promise<T>,
): Promise<T | QuotaAnswer> {
  if (wanted && ask && !ask.granted) {
    const slot = { key: wanted.settings.key, requestId: ask.requestId };
    const granted = await askForSlot(wanted, ask);
    return granted !== undefined ? { admitted: { ...slot, ...granted } } : { queued: slot };
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

/**
 * Gives a held slot back from the activity that read its task final: the gate hears of it without waiting
 * for the run's next workflow task (the run forgets the slot when the answer reaches it). Idempotent at
 * the gate; a gate that is not running holds nothing. False when Temporal could not be told: the answer
 * still goes back (failing the attempt would query the task again), and the run gives the slot back.
 */
export async function giveBackSlot(slot: HeldQuotaSlot): Promise<boolean> {
  const { requestId, sentAt } = slot;
  try {
    await Context.current()
      .client.workflow.getHandle(admissionGateId(slot.key))
      .signal(releaseSlotSignal, slotRelease(requestId, sentAt));
    return true;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return true;
    Context.current().log.warn('the quota gate could not be told of a slot given back; the run gives it back', {
      key: slot.key,
      requestId,
      error: err instanceof Error ? err.message : String(err),
    });
    return false;
  }
}

/** The provider refused a granted create for its quota: the gate takes the slot back (back-pressure). */
async function reportRefusal(key: string, requestId: string, retryAfterMs: number | undefined): Promise<void> {
  await Context.current()
    .client.workflow.getHandle(admissionGateId(key))
    .signal(slotRefusedSignal, { requestId, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) });
}
