// AdmissionGate: one workflow per quota key (workflow id `admission-<key>`) that holds the key's slots,
// the semaphore of Temporal's mutex sample with the state kept in a class (GateState, gate-state.ts) as in
// the safe-message-handlers sample. The create and submit activities ask for their run with the update
// `acquireSlotNow` (when a slot is free the answer is the grant itself, with no signal), or the signal
// `acquireSlot`; a run is told with `slotGranted` (a signal to its exact run, with the grant's number) and
// gives back with `releaseSlot`. A slot is leased: when the lease passes, the gate signals the holder again
// (the same grant's number); if that run no longer exists (terminated, reset, timed out, continued as new,
// or completed without releasing) the signal fails and the slot is freed,
// otherwise the lease is extended. So a live holder needs no renewals (no billable signals), and a dead
// one holds a slot at most one lease. A grant to a run that is already gone fails the same way and frees
// the slot at once.
// With a creates-per-minute limit, a run tells when its create was answered: with its release, or at
// once (`slotSent`) when later than the grant's `sendBy` (gate-rate.ts).
// A grant the provider refused comes back with `slotRefused` (gate-state.ts: back-pressure); a refusal's
// Retry-After holds every grant until it has passed (a timer). Each ask carries its worker's limits.
// History is bounded by continue-as-new carrying the whole state, after every handler and every grant
// signal in flight has finished. The gate never ends, so under Worker Deployment versioning it does not
// stay pinned: once another build is current it continues as new onto that build (docs/upgrading.md).
// Deterministic: timers and signals only.
import {
  allHandlersFinished,
  condition,
  getExternalWorkflowHandle,
  makeContinueAsNewFunc,
  setHandler,
  sleep,
  workflowInfo,
} from '@temporalio/workflow';
import {
  acquireSlotNowUpdate,
  acquireSlotSignal,
  gateStateQuery,
  releaseSlotSignal,
  renewSlotSignal,
  slotDeniedSignal,
  slotRefusedSignal,
  slotGrantedSignal,
  slotSentSignal,
  slotPositionQuery,
  type AdmissionGateInput,
  type GrantedSlot,
  type SlotRequest,
} from '../../contract/admission.js';
import { nextUtcDay } from './gate-budget.js';
import { reportGate } from './gate-metrics.js';
import { GateState } from './gate-state.js';

export const DEFAULT_LEASE_MS = 10 * 60_000;

/** The update's answer for a slot held: granted, and which grant (the run tells a lease check by it). */
const grantedNow = (slot: GrantedSlot) => ({
  granted: true,
  ...(slot.grant !== undefined ? { grant: slot.grant } : {}),
  ...(slot.sendBy !== undefined ? { sendBy: slot.sendBy } : {}),
});
/** Far below Temporal's 50,000-event limit, and well before its continue-as-new suggestion (~4,000 in some setups). */
export const DEFAULT_MAX_HISTORY_EVENTS = 10_000;
/** An idle gate wakes this often on a versioned worker, to move to a build made current meanwhile. */
export const DEFAULT_VERSION_CHECK_MS = 5 * 60_000;

export async function AdmissionGate(input: AdmissionGateInput): Promise<void> {
  const leaseMs = input.leaseMs ?? DEFAULT_LEASE_MS;
  const maxEvents = input.maxHistoryEvents ?? DEFAULT_MAX_HISTORY_EVENTS;
  const gate = new GateState(input.capacity, input.state, input.groups, input.rate);
  let signalsInFlight = 0;
  /** The deadline of the lease timer running, if any, and whether a lease timer has fired since the last look. */
  let timerAt: number | undefined;
  let timerFired = false;

  /** A message changed what the gate holds or waits for: the loop reports it (metrics) even if it grants nothing. */
  let changed = false;
  setHandler(slotRefusedSignal, ({ requestId, retryAfterMs }) => {
    changed = gate.refuse(requestId, Date.now(), retryAfterMs) || changed;
  });
  setHandler(releaseSlotSignal, ({ requestId, sentAt }) => {
    changed = gate.release(requestId, sentAt) || changed;
  });
  // A create answered later than its grant's sendBy: the rate window holds it longer (nothing to grant).
  setHandler(slotSentSignal, ({ requestId, sentAt }) => gate.sent(requestId, sentAt));
  setHandler(renewSlotSignal, ({ requestId }) => void gate.renew(requestId, Date.now() + leaseMs));
  setHandler(gateStateQuery, () => gate.view(input.key, Date.now()));
  setHandler(slotPositionQuery, (requestId) => gate.position(requestId));

  /** Tells the holder's run of its slot (a grant, or a lease check); a run that is gone frees the slot. */
  const tell = (slot: GrantedSlot): void => {
    signalsInFlight++;
    getExternalWorkflowHandle(slot.workflowId, slot.runId)
      .signal(slotGrantedSignal, {
        requestId: slot.requestId,
        ...(slot.grant !== undefined ? { grant: slot.grant } : {}),
        grantedAt: slot.grantedAt,
        leaseUntil: slot.leaseUntil,
        ...(slot.sendBy !== undefined ? { sendBy: slot.sendBy } : {}),
      })
      .catch(() => {
        changed = gate.release(slot.requestId) || changed;
      })
      .finally(() => signalsInFlight--);
  };
  /** Tells a run its request is denied (its tenant's budget is spent and it chose to fail). */
  const deny = (r: SlotRequest, now: number): void => {
    signalsInFlight++;
    const message = `the daily budget of tenant ${r.fairnessKey} is spent (until ${new Date(nextUtcDay(now)).toISOString()})`;
    getExternalWorkflowHandle(r.workflowId, r.runId)
      .signal(slotDeniedSignal, { requestId: r.requestId, reason: 'budget', message })
      .catch(() => undefined) // a run that is gone needs no answer
      .finally(() => signalsInFlight--);
  };

  setHandler(acquireSlotSignal, ({ limits, ...ask }) => {
    if (limits) gate.setLimits(limits);
    const added = gate.acquire({ ...ask, enqueuedAt: Date.now() });
    changed = added || changed;
    // Asked again while it holds its slot (an update granted it, and its answer was lost): told again.
    const held = added ? undefined : gate.slotOf(ask.requestId);
    if (held) tell(held);
  });
  // The ask answered at once: granted here when the request is next in line and a slot is free, so that
  // no grant signal follows (the run sends the create in its next attempt). Also true for a
  // request that already holds its slot (the activity's retry asks again).
  setHandler(acquireSlotNowUpdate, ({ limits, ...ask }) => {
    if (limits) gate.setLimits(limits);
    const now = Date.now();
    const added = gate.acquire({ ...ask, enqueuedAt: now });
    changed = added || changed;
    const held = gate.slotOf(ask.requestId);
    if (held) return grantedNow(held);
    // A request the gate already had (asked by a signal too: this update's answer may have no listener
    // left) is granted by the loop, with a signal, never silently in this answer.
    if (!added) return { granted: false };
    let granted: ReturnType<typeof grantedNow> | { granted: false } = { granted: false };
    for (const slot of gate.grant(now, now + leaseMs)) {
      if (slot.requestId === ask.requestId) granted = grantedNow(slot);
      else tell(slot);
    }
    return granted;
  });

  /**
   * One timer for the earliest lease, started only when that lease is earlier than the running timer's:
   * leases granted later end later, so a busy gate starts few timers (each one is a billable action), and
   * a timer that fires for a lease already released only wakes the gate once.
   */
  const armLeaseTimer = (): void => {
    const next = gate.nextLeaseExpiry();
    if (next === undefined || (timerAt !== undefined && timerAt <= next)) return;
    timerAt = next;
    void sleep(Math.max(1, next - Date.now())).then(() => {
      timerFired = true;
      if (timerAt === next) timerAt = undefined;
    });
  };

  /**
   * One timer to the end of each pause with requests waiting: a refusal's Retry-After, a full rate window,
   * or a tenant's spent daily budget (the next UTC day).
   */
  const armed = new Set<number>();
  let pauseOver = false;
  const pausedUntil = () => (gate.waitingCount > 0 ? gate.nextGrantAt(Date.now()) : 0);
  const wakeAt = (until: number | undefined): void => {
    if (until === undefined || until <= Date.now() || armed.has(until)) return;
    armed.add(until);
    void sleep(until - Date.now()).then(() => {
      armed.delete(until);
      pauseOver = true;
    });
  };
  /** A pause began that no timer ends yet. */
  const armsPending = () => pausedUntil() > Date.now() && !armed.has(pausedUntil());

  /**
   * Under versioning the server tells a pinned run when another build became current; the gate learns it
   * at its next workflow task, so a versioned gate wakes at least every `versionCheckMs` (one timer).
   */
  const buildChanged = () => workflowInfo().targetWorkerDeploymentVersionChanged;
  let versionCheckDue = false;
  let versionTimerArmed = false;
  const armVersionCheck = (): void => {
    // An unversioned worker reports its build id with no deployment name: nothing to move to.
    if (versionTimerArmed || !workflowInfo().currentDeploymentVersion?.deploymentName) return;
    versionTimerArmed = true;
    void sleep(input.versionCheckMs ?? DEFAULT_VERSION_CHECK_MS).then(() => {
      versionTimerArmed = false;
      versionCheckDue = true;
    });
  };

  const shouldContinueAsNew = () =>
    workflowInfo().continueAsNewSuggested || workflowInfo().historyLength > maxEvents || buildChanged();

  while (!shouldContinueAsNew()) {
    armLeaseTimer();
    armVersionCheck();
    wakeAt(pausedUntil());
    wakeAt(gate.budgetWaitUntil(Date.now()));
    await condition(
      () =>
        gate.grantable(Date.now()) ||
        changed ||
        timerFired ||
        pauseOver ||
        versionCheckDue ||
        shouldContinueAsNew() ||
        armsPending(),
    );
    pauseOver = false;
    versionCheckDue = false;
    changed = false;
    const now = Date.now();
    if (timerFired) {
      timerFired = false;
      for (const slot of gate.dueLeases(now)) {
        // Extended first, so that the slot stays held while its check is in flight and is checked once.
        gate.renew(slot.requestId, now + leaseMs);
        tell({ ...slot, leaseUntil: now + leaseMs });
      }
    }
    for (const r of gate.deny(now)) deny(r, now);
    for (const slot of gate.grant(now, now + leaseMs)) tell(slot);
    reportGate(gate.view(input.key, now));
  }
  await condition(() => signalsInFlight === 0 && allHandlersFinished());
  // Onto the current build when it changed: the next run's first task may go there (then it is pinned to it).
  const next = makeContinueAsNewFunc<typeof AdmissionGate>(
    buildChanged() ? { initialVersioningBehavior: 'AUTO_UPGRADE' } : {},
  );
  await next({ ...input, state: gate.snapshot() });
}
