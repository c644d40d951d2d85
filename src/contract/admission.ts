// The admission gate's messages and types (src/workflows/admission/), shared by the gate, the runs that
// hold its slots and the activities that ask it and start it (src/activities/admission.ts). One gate per
// quota key.
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';

export { DEFAULT_FAIRNESS_KEY, DEFAULT_PRIORITY } from '../model/priority.js';

/** One run's request for a slot: the run is where the grant is signalled. */
export interface SlotRequest {
  /** Unique per request; a request sent twice (a retried signal) is one request. */
  requestId: string;
  workflowId: string;
  runId: string;
  /** 1 (highest) to 5. */
  priority: number;
  /** The tenant: tenants share the slots by weight, whatever each one has waiting. */
  fairnessKey: string;
  /** The tenant's weight (default 1): a weight-2 tenant holds twice the slots of a weight-1 one. */
  weight: number;
  /** Set by the gate when it receives the request (ms since the epoch, workflow time). */
  enqueuedAt: number;
  /** A sub-limit the request counts against besides the key's capacity (the video model), if any. */
  group?: string;
  /** Seconds of video the task will make (the create's `duration`): what a daily budget in seconds spends. */
  seconds?: number;
  /** When its tenant's daily budget is spent: wait for the next day (default), or be denied (BudgetExceeded). */
  onBudgetExceeded?: 'wait' | 'fail';
}

/** What one tenant may start per UTC day; either limit may be absent. */
export interface TenantBudget {
  tasks?: number;
  seconds?: number;
}

/** The limits a gate enforces, as the worker that asks is configured (the latest ask's win). */
export interface GateLimits {
  capacity: number;
  /** Sub-limits by group (the video model): a group at its limit waits, others go on. */
  groups?: Record<string, number>;
  /** At most `limit` grants per sliding window (the provider's creates per minute; window 60 s by default). */
  rate?: { limit: number; windowMs?: number };
  /** Daily budgets by tenant (fairnessKey). */
  budgets?: Record<string, TenantBudget>;
}

/** What a requester sends: the gate stamps `enqueuedAt`. */
export type SlotAsk = Omit<SlotRequest, 'enqueuedAt' | 'priority' | 'fairnessKey' | 'weight'> &
  Partial<Pick<SlotRequest, 'priority' | 'fairnessKey' | 'weight'>> & {
    /** The asking worker's configured limits: a gate adopts the latest, so a redeploy changes them. */
    limits?: GateLimits;
  };

export interface GrantedSlot {
  requestId: string;
  workflowId: string;
  runId: string;
  fairnessKey: string;
  group?: string;
  /**
   * Which grant this is: the gate's count of grants when it made it (continue-as-new carries the count).
   * A lease check repeats it; a grant after a refusal has another. Unset in slots of gates before 0.3.0.
   */
  grant?: number;
  grantedAt: number;
  /** The gate checks the holder is still running when this passes, and frees the slot if not. */
  leaseUntil: number;
  /** With a rate limit: by when the gate assumes the create answered (SlotGranted.sendBy). */
  sendBy?: number;
}

/** One grant in a rate window: granted `at`; its create answered at `sent`, once the run said so. */
export interface RateEntry {
  requestId: string;
  at: number;
  sent?: number;
}

/** The whole state of one gate: what continue-as-new carries. */
export interface GateSnapshot {
  capacity: number;
  waiting: SlotRequest[];
  granted: Array<GrantedSlot & Partial<Pick<SlotRequest, 'priority' | 'weight' | 'enqueuedAt'>>>;
  /** The grant counter and, per tenant, the count at its last grant (ties go to the least recently served). */
  grants: number;
  lastServed: Record<string, number>;
  groups?: Record<string, number>;
  /** Set by a 429: no more slots than this until a held one is released (the provider's real capacity). */
  ceiling?: number;
  /** Set by a 429's Retry-After: no grant before this time. */
  pausedUntil?: number;
  refusalsInRow?: number;
  releasesSinceRefusal?: number;
  rate?: { limit: number; windowMs: number };
  /** The grants within the rate's window; a bare time (ms epoch) is a grant that names no request. */
  recentGrants?: Array<RateEntry | number>;
  budgets?: Record<string, TenantBudget>;
  /** The UTC day (days since the epoch) `spent` counts. */
  budgetDay?: number;
  spent?: Record<string, { tasks: number; seconds: number }>;
}

export interface AdmissionGateInput {
  key: string;
  capacity: number;
  /** Sub-limits by group (the video model); later asks may change them with their `limits`. */
  groups?: Record<string, number>;
  /** Grants per sliding window; later asks may change it. */
  rate?: GateLimits['rate'];
  /** How long a holder keeps a slot before the gate checks it is still running (default 10 minutes). */
  leaseMs?: number;
  /** Continue as new past this many history events (default 10,000), or when Temporal suggests it. */
  maxHistoryEvents?: number;
  /**
   * On a versioned worker, how often an idle gate looks whether another build became current (default 5
   * minutes), so that it moves there even when no job asks.
   */
  versionCheckMs?: number;
  /** Carried over by continue-as-new. */
  state?: GateSnapshot;
}

/** The gate's answer to `gateState`. */
export interface GateStateView {
  key: string;
  capacity: number;
  /** Lower than `capacity` after a provider refusal, until a held slot is released. */
  effectiveCapacity: number;
  groups?: Record<string, number>;
  inFlight: number;
  waiting: number;
  /** Waiting requests by priority ("1".."5"), then by tenant. */
  waitingBy: Record<string, Record<string, number>>;
  granted: GrantedSlot[];
  /** Daily budgets by tenant, and what each has spent today (UTC). */
  budgets?: Record<string, TenantBudget>;
  spentToday?: Record<string, { tasks: number; seconds: number }>;
}

export interface SlotGranted {
  requestId: string;
  /** Which grant (GrantedSlot.grant): a lease check repeats it, a grant after a refusal is another one. */
  grant?: number;
  /** When this grant was made. */
  grantedAt: number;
  leaseUntil: number;
  /**
   * With a rate limit: by when the gate assumes the create answered (gate-rate.ts); a run whose create is
   * answered later tells the gate at once (slotSent).
   */
  sendBy?: number;
}

/**
 * How a run tells one grant of its request from another: by the gate's grant number, never by a time (a
 * lease check repeats the grant it checks); by its time only from a gate that sends no number.
 */
export function grantIdOf(g: { grant?: number | undefined; grantedAt?: number | undefined }): string {
  return g.grant !== undefined ? `#${g.grant}` : `@${g.grantedAt ?? 0}`;
}

/** A request the gate will not grant: its tenant's daily budget is spent and its job chose to fail. */
export interface SlotDenied {
  requestId: string;
  reason: 'budget';
  message: string;
}

/** A granted create was refused by the provider (429): the request waits again, first in its line. */
export interface SlotRefused {
  requestId: string;
  /** The provider's Retry-After, if it gave one: no grant of the key before it has passed. */
  retryAfterMs?: number;
}

export interface SlotSent {
  requestId: string;
  sentAt: number;
}

export interface SlotRelease {
  requestId: string;
  sentAt?: number;
}

/** The release of `requestId`'s slot, from a run or from the activity that read its task final. */
export function slotRelease(requestId: string, sentAt: number | undefined): SlotRelease {
  return sentAt === undefined ? { requestId } : { requestId, sentAt };
}

/** The gate's workflow id for a quota key. */
export function admissionGateId(key: string): string {
  return `admission-${key}`;
}

export const acquireSlotSignal = defineSignal<[SlotAsk]>('acquireSlot');
/**
 * The same ask, answered at once (update-with-start from the create or submit activity): `granted` when
 * a slot was free and the request was next in line, with the grant's number (`grant`); then no
 * `slotGranted` signal follows. Otherwise the request waits, as if signalled.
 */
export const acquireSlotNowUpdate = defineUpdate<{ granted: boolean; grant?: number; sendBy?: number }, [SlotAsk]>(
  'acquireSlotNow',
);
/** A run gives its slot back; `sentAt`: when its create (submit) was answered, if one was (the rate window). */
export const releaseSlotSignal = defineSignal<[SlotRelease]>('releaseSlot');
/** A run's create was answered after the grant's `sendBy`: the rate window counts it from `sentAt`. */
export const slotSentSignal = defineSignal<[SlotSent]>('slotSent');
export const slotRefusedSignal = defineSignal<[SlotRefused]>('slotRefused');
/** Sent by the gate to the requesting run. */
export const slotDeniedSignal = defineSignal<[SlotDenied]>('slotDenied');
export const renewSlotSignal = defineSignal<[{ requestId: string }]>('renewSlot');
/** Sent by the gate to the requesting run: on the grant, and again as the lease check. */
export const slotGrantedSignal = defineSignal<[SlotGranted]>('slotGranted');
export const gateStateQuery = defineQuery<GateStateView>('gateState');
/** How many requests would be granted before this one if no slot were released meanwhile; -1 unknown. */
export const slotPositionQuery = defineQuery<number, [string]>('slotPosition');
