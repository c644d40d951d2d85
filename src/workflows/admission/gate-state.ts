// The state of one admission gate (one quota key) and its decisions, as a pure class: no SDK, no clock
// (every time is passed in), so each rule is a unit test (test/unit/admission-gate-state.test.ts) and the
// workflow (gate.ts) only wires signals, timers and continue-as-new around it.
//
// Who gets a free slot: gate-order.ts (priority, then tenants by weighted share of the slots held). With
// equal holdings this is weighted round-robin; a tenant that arrives while another holds every slot gets
// the freed slots until their shares meet, so one tenant's 10,000 waiting requests never starve another's
// few. Fairness is over slots held, not grants counted: a slot is provider concurrency, and a tenant whose
// tasks run long has used more of it. A group (the video model) may have its own limit besides.
// A granted request the provider refused (429) waits again at the head of its line (gate-backpressure.ts).
import { BackPressure } from './gate-backpressure.js';
import { DailyBudgets } from './gate-budget.js';
import { RateWindow } from './gate-rate.js';
import { grantOrder, placeIn } from './gate-order.js';
import {
  DEFAULT_FAIRNESS_KEY,
  DEFAULT_PRIORITY,
  type GateLimits,
  type GateSnapshot,
  type GateStateView,
  type GrantedSlot,
  type SlotRequest,
} from '../../contract/admission.js';

const clampPriority = (p: number | undefined): number =>
  p === undefined || !Number.isFinite(p) ? DEFAULT_PRIORITY : Math.min(5, Math.max(1, Math.round(p)));
const atLeastOne = (n: number) => Math.max(1, Math.floor(n));

/** A granted slot with what its request needs to wait again if the provider refuses it. */
type HeldSlot = GrantedSlot & Pick<SlotRequest, 'priority' | 'weight' | 'enqueuedAt'>;

export class GateState {
  #capacity: number;
  #groups: Record<string, number>;
  readonly #pressure: BackPressure;
  readonly #rate: RateWindow;
  readonly #budgets: DailyBudgets;
  private waiting: SlotRequest[];
  private readonly granted = new Map<string, HeldSlot>();
  private grants: number;
  private readonly lastServed: Map<string, number>;

  constructor(capacity: number, snapshot?: GateSnapshot, groups?: Record<string, number>, rate?: GateLimits['rate']) {
    this.#capacity = atLeastOne(snapshot?.capacity ?? capacity);
    this.#groups = { ...(snapshot?.groups ?? groups ?? {}) };
    this.#pressure = new BackPressure(snapshot);
    this.#rate = new RateWindow(snapshot);
    this.#budgets = new DailyBudgets(snapshot);
    if (!snapshot && rate) this.#rate.set(rate);
    this.waiting = [...(snapshot?.waiting ?? [])];
    for (const g of snapshot?.granted ?? [])
      this.granted.set(g.requestId, { priority: DEFAULT_PRIORITY, weight: 1, enqueuedAt: g.grantedAt, ...g });
    this.grants = snapshot?.grants ?? 0;
    this.lastServed = new Map(Object.entries(snapshot?.lastServed ?? {}));
  }

  get capacity(): number {
    return this.#capacity;
  }

  /** What may be held now: the capacity, or fewer after a refusal (until a held slot is released). */
  get effectiveCapacity(): number {
    return Math.min(this.#capacity, this.#pressure.ceiling ?? Infinity);
  }

  /** No grant before this time: a refusal's Retry-After, or the rate window's reopening (`now` when free). */
  nextGrantAt(now: number): number {
    return Math.max(now, this.#pressure.pausedUntil, this.#rate.reopensAt(now));
  }

  get inFlight(): number {
    return this.granted.size;
  }

  /** Adopts the limits of the worker that asked last (a redeploy with other settings changes them). */
  setLimits(limits: GateLimits): void {
    this.#capacity = atLeastOne(limits.capacity);
    this.#groups = Object.fromEntries(Object.entries(limits.groups ?? {}).map(([g, n]) => [g, atLeastOne(n)]));
    this.#rate.set(limits.rate);
    this.#budgets.set(limits.budgets);
  }

  /**
   * The provider refused a granted request's create (429): it waits again ahead of its tenant's line
   * (gate-backpressure.ts). False (nothing changes) when it holds no slot (an old or repeated refusal).
   */
  refuse(requestId: string, now: number, retryAfterMs?: number): boolean {
    const slot = this.granted.get(requestId);
    if (!slot) return false;
    this.granted.delete(requestId);
    this.#pressure.refused(this.granted.size, now, retryAfterMs);
    this.#budgets.spend(slot, now, -1); // nothing was made
    const { grantedAt: _granted, leaseUntil: _lease, ...request } = slot;
    this.waiting.unshift(request);
    return true;
  }

  get waitingCount(): number {
    return this.waiting.length;
  }

  /** Queues a request; false (and nothing changes) when this requestId is already waiting or granted. */
  acquire(request: Omit<SlotRequest, 'priority' | 'fairnessKey' | 'weight'> & Partial<SlotRequest>): boolean {
    if (this.granted.has(request.requestId) || this.waiting.some((w) => w.requestId === request.requestId)) {
      return false;
    }
    const weight = request.weight !== undefined && request.weight > 0 ? request.weight : 1;
    const fairnessKey = request.fairnessKey || DEFAULT_FAIRNESS_KEY;
    this.waiting.push({ ...request, priority: clampPriority(request.priority), fairnessKey, weight });
    return true;
  }

  /** The slot `requestId` holds, if it holds one. */
  slotOf(requestId: string): GrantedSlot | undefined {
    const slot = this.granted.get(requestId);
    return slot && slotView(slot);
  }

  /** Removes and returns the requests whose tenant's budget is spent and whose job chose to fail. */
  deny(now: number): SlotRequest[] {
    const denied = this.waiting.filter((r) => r.onBudgetExceeded === 'fail' && !this.#budgets.fits(r, now));
    this.waiting = this.waiting.filter((r) => !denied.includes(r));
    return denied;
  }

  /** When a request waits for the next day's budget: that day's start; else undefined. */
  budgetWaitUntil(now: number): number | undefined {
    return this.waiting.some((r) => !this.#budgets.fits(r, now)) ? this.#budgets.nextDay(now) : undefined;
  }

  /**
   * Frees a granted slot (a task ended: a refusal's ceiling rises by one) or withdraws a waiting request;
   * unknown ids are ignored (false). `sentAt`: when the slot's create was answered (the rate window).
   */
  release(requestId: string, sentAt?: number): boolean {
    if (sentAt !== undefined) this.sent(requestId, sentAt);
    if (this.granted.delete(requestId)) {
      this.#pressure.released(this.#capacity);
      return true;
    }
    const before = this.waiting.length;
    this.waiting = this.waiting.filter((w) => w.requestId !== requestId);
    return this.waiting.length !== before;
  }

  /** The create of `requestId`'s grant was answered at `at` (later than assumed, or with its release). */
  sent(requestId: string, at: number): void {
    this.#rate.sent(requestId, at);
  }

  /** Extends a granted slot's lease; false when the slot is not held (released or expired). */
  renew(requestId: string, leaseUntil: number): boolean {
    const slot = this.granted.get(requestId);
    if (!slot) return false;
    slot.leaseUntil = Math.max(slot.leaseUntil, leaseUntil);
    return true;
  }

  /** The slots whose lease has passed, still held. */
  dueLeases(now: number): GrantedSlot[] {
    return [...this.granted.values()].filter((g) => g.leaseUntil <= now);
  }

  nextLeaseExpiry(): number | undefined {
    let next: number | undefined;
    for (const g of this.granted.values()) if (next === undefined || g.leaseUntil < next) next = g.leaseUntil;
    return next;
  }

  /** Whether `grant` would grant anything at `now`: exact, or a request held back would wake the gate forever. */
  grantable(now: number): boolean {
    return this.#choose(now, Math.min(1, this.effectiveCapacity - this.granted.size), false).length > 0;
  }

  /** Grants the free slots by the rules above; returns the new grants, each to be signalled to its run. */
  grant(now: number, leaseUntil: number): GrantedSlot[] {
    const chosen = this.#choose(now, this.effectiveCapacity - this.granted.size, true);
    const ids = new Set(chosen.map((r) => r.requestId));
    this.waiting = this.waiting.filter((w) => !ids.has(w.requestId));
    return chosen.map((r) => {
      const grant = this.grants++;
      this.lastServed.set(r.fairnessKey, grant);
      const sendBy = this.#rate.record(r.requestId, now);
      const slot: HeldSlot = { ...r, grant, grantedAt: now, leaseUntil, ...(sendBy !== undefined ? { sendBy } : {}) };
      this.granted.set(r.requestId, slot);
      return slotView(slot);
    });
  }

  /** How many waiting requests would be granted before this one if no slot were released; 0 when it holds a slot, -1 unknown. */
  position(requestId: string): number {
    return this.granted.has(requestId) ? 0 : placeIn(this.order(), requestId);
  }

  /** The next requests to grant, at most `free`; `spend` charges their budgets as they are chosen. */
  #choose(now: number, free: number, spend: boolean): SlotRequest[] {
    const room = Math.min(free, this.#rate.room(now));
    if (room <= 0 || this.waiting.length === 0 || this.nextGrantAt(now) > now) return [];
    const heldByGroup = new Map<string, number>();
    for (const g of this.granted.values())
      if (g.group !== undefined) heldByGroup.set(g.group, (heldByGroup.get(g.group) ?? 0) + 1);
    const chosen: SlotRequest[] = [];
    for (const r of this.order()) {
      if (!this.#budgets.fits(r, now)) continue; // its tenant's day is spent: it waits for the next
      if (r.group !== undefined && this.#groups[r.group] !== undefined) {
        const held = heldByGroup.get(r.group) ?? 0;
        if (held >= this.#groups[r.group]!) continue; // its model is at its own limit: the next one may go
        heldByGroup.set(r.group, held + 1);
      }
      chosen.push(r);
      if (spend) this.#budgets.spend(r, now); // before the next is weighed: a tenant's requests share its budget
      if (chosen.length >= room) break;
    }
    return chosen;
  }

  /** Every waiting request in the order it would be granted if no slot were released meanwhile. */
  order(): Generator<SlotRequest> {
    return grantOrder(this.waiting, this.granted.values(), this.lastServed, this.grants);
  }

  /** What continue-as-new carries; tenants with nothing waiting or held are dropped from the tie-break record. */
  snapshot(): GateSnapshot {
    const active = new Set([...this.waiting, ...this.granted.values()].map((r) => r.fairnessKey));
    return {
      capacity: this.#capacity,
      waiting: this.waiting.map((w) => ({ ...w })),
      granted: [...this.granted.values()].map((g) => ({ ...g })),
      grants: this.grants,
      lastServed: Object.fromEntries([...this.lastServed].filter(([t]) => active.has(t))),
      ...(Object.keys(this.#groups).length > 0 ? { groups: { ...this.#groups } } : {}),
      ...this.#pressure.snapshot(),
      ...this.#rate.snapshot(),
      ...this.#budgets.snapshot(),
    };
  }

  view(key: string, now: number): GateStateView {
    const waitingBy: Record<string, Record<string, number>> = {};
    for (const w of this.waiting) {
      const byTenant = (waitingBy[String(w.priority)] ??= {});
      byTenant[w.fairnessKey] = (byTenant[w.fairnessKey] ?? 0) + 1;
    }
    return {
      key,
      capacity: this.#capacity,
      effectiveCapacity: this.effectiveCapacity,
      inFlight: this.granted.size,
      waiting: this.waiting.length,
      waitingBy,
      granted: [...this.granted.values()].map(slotView),
      ...(Object.keys(this.#groups).length > 0 ? { groups: { ...this.#groups } } : {}),
      ...(this.#budgets.snapshot().budgets ? this.#budgets.view(now) : {}),
    };
  }
}

/** A held slot as the gate tells it (without the request's fields kept for a refusal). */
const slotView = ({ priority: _p, weight: _w, enqueuedAt: _e, ...slot }: HeldSlot): GrantedSlot => slot;
