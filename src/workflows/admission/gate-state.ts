// The state of one admission gate (one quota key) and its decisions, as a pure class: no SDK, no clock
// (every time is passed in), so each rule is a unit test (test/unit/admission-gate-state.test.ts) and the
// workflow (gate.ts) only wires signals, timers and continue-as-new around it.
//
// Who gets a free slot: the highest priority first (1 before 5). Within one priority, the tenant
// (fairnessKey) holding the smallest share of the slots for its weight, counting the grant it is about to
// get: (held + 1) / weight; ties go to the tenant served least recently (one never served first), then to
// the oldest request. FIFO within a tenant. With equal holdings this is weighted round-robin; a tenant that
// arrives while another holds every slot gets the freed slots until their shares meet, so one tenant's
// 10,000 waiting requests never starve another's few. Fairness is over slots held, not grants counted,
// because a slot is provider concurrency: a tenant whose tasks run long has used more of it.
import {
  DEFAULT_FAIRNESS_KEY,
  DEFAULT_PRIORITY,
  type GateSnapshot,
  type GateStateView,
  type GrantedSlot,
  type SlotRequest,
} from '../../contract/admission.js';

function clampPriority(p: number | undefined): number {
  return p === undefined || !Number.isFinite(p) ? DEFAULT_PRIORITY : Math.min(5, Math.max(1, Math.round(p)));
}

export class GateState {
  readonly capacity: number;
  private waiting: SlotRequest[];
  private readonly granted = new Map<string, GrantedSlot>();
  private grants: number;
  private readonly lastServed: Map<string, number>;

  constructor(capacity: number, snapshot?: GateSnapshot) {
    this.capacity = Math.max(1, Math.floor(snapshot?.capacity ?? capacity));
    this.waiting = [...(snapshot?.waiting ?? [])];
    for (const g of snapshot?.granted ?? []) this.granted.set(g.requestId, g);
    this.grants = snapshot?.grants ?? 0;
    this.lastServed = new Map(Object.entries(snapshot?.lastServed ?? {}));
  }

  get inFlight(): number {
    return this.granted.size;
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
    this.waiting.push({
      requestId: request.requestId,
      workflowId: request.workflowId,
      runId: request.runId,
      priority: clampPriority(request.priority),
      fairnessKey: request.fairnessKey || DEFAULT_FAIRNESS_KEY,
      weight,
      enqueuedAt: request.enqueuedAt,
    });
    return true;
  }

  /** Frees a granted slot or withdraws a waiting request; unknown ids are ignored (false). */
  release(requestId: string): boolean {
    if (this.granted.delete(requestId)) return true;
    const before = this.waiting.length;
    this.waiting = this.waiting.filter((w) => w.requestId !== requestId);
    return this.waiting.length !== before;
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

  /** Frees every slot whose lease has passed, and returns them. */
  expire(now: number): GrantedSlot[] {
    const due = this.dueLeases(now);
    for (const g of due) this.granted.delete(g.requestId);
    return due;
  }

  nextLeaseExpiry(): number | undefined {
    let next: number | undefined;
    for (const g of this.granted.values()) if (next === undefined || g.leaseUntil < next) next = g.leaseUntil;
    return next;
  }

  /** Whether `grant` would grant anything now. */
  grantable(): boolean {
    return this.granted.size < this.capacity && this.waiting.length > 0;
  }

  /** Grants the free slots by the rules above; returns the new grants, each to be signalled to its run. */
  grant(now: number, leaseUntil: number): GrantedSlot[] {
    const free = this.capacity - this.granted.size;
    if (free <= 0 || this.waiting.length === 0) return [];
    const chosen: SlotRequest[] = [];
    for (const r of this.order()) {
      chosen.push(r);
      if (chosen.length >= free) break;
    }
    const ids = new Set(chosen.map((r) => r.requestId));
    this.waiting = this.waiting.filter((w) => !ids.has(w.requestId));
    return chosen.map((r) => {
      this.lastServed.set(r.fairnessKey, this.grants++);
      const slot = {
        requestId: r.requestId,
        workflowId: r.workflowId,
        runId: r.runId,
        fairnessKey: r.fairnessKey,
        grantedAt: now,
        leaseUntil,
      };
      this.granted.set(r.requestId, slot);
      return slot;
    });
  }

  /** How many waiting requests would be granted before this one if no slot were released; 0 when it holds a slot, -1 unknown. */
  position(requestId: string): number {
    if (this.granted.has(requestId)) return 0;
    let ahead = 0;
    for (const r of this.order()) {
      if (r.requestId === requestId) return ahead;
      ahead++;
    }
    return -1;
  }

  /** Every waiting request in the order it would be granted if no slot were released meanwhile. */
  *order(): Generator<SlotRequest> {
    const held = new Map<string, number>();
    for (const g of this.granted.values()) held.set(g.fairnessKey, (held.get(g.fairnessKey) ?? 0) + 1);
    const served = new Map(this.lastServed);
    let count = this.grants;
    for (let priority = 1; priority <= 5; priority++) {
      // Each tenant's requests of this priority, oldest first, with their place in arrival order.
      const queues = new Map<string, Array<{ r: SlotRequest; seq: number }>>();
      this.waiting.forEach((r, seq) => {
        if (r.priority !== priority) return;
        const q = queues.get(r.fairnessKey);
        if (q) q.push({ r, seq });
        else queues.set(r.fairnessKey, [{ r, seq }]);
      });
      const heads = new Map<string, number>([...queues.keys()].map((t) => [t, 0]));
      while (heads.size > 0) {
        let best: { tenant: string; share: number; served: number; seq: number } | undefined;
        for (const [tenant, head] of heads) {
          const { r, seq } = queues.get(tenant)![head]!;
          const candidate = {
            tenant,
            share: ((held.get(tenant) ?? 0) + 1) / r.weight,
            served: served.get(tenant) ?? -1,
            seq,
          };
          if (
            !best ||
            candidate.share < best.share ||
            (candidate.share === best.share &&
              (candidate.served < best.served || (candidate.served === best.served && candidate.seq < best.seq)))
          ) {
            best = candidate;
          }
        }
        const tenant = best!.tenant;
        const queue = queues.get(tenant)!;
        const head = heads.get(tenant)!;
        yield queue[head]!.r;
        held.set(tenant, (held.get(tenant) ?? 0) + 1);
        served.set(tenant, count++);
        if (head + 1 >= queue.length) heads.delete(tenant);
        else heads.set(tenant, head + 1);
      }
    }
  }

  /** What continue-as-new carries; tenants with nothing waiting or held are dropped from the tie-break record. */
  snapshot(): GateSnapshot {
    const active = new Set([...this.waiting, ...this.granted.values()].map((r) => r.fairnessKey));
    return {
      capacity: this.capacity,
      waiting: this.waiting.map((w) => ({ ...w })),
      granted: [...this.granted.values()].map((g) => ({ ...g })),
      grants: this.grants,
      lastServed: Object.fromEntries([...this.lastServed].filter(([t]) => active.has(t))),
    };
  }

  view(key: string): GateStateView {
    const waitingBy: Record<string, Record<string, number>> = {};
    for (const w of this.waiting) {
      const byTenant = (waitingBy[String(w.priority)] ??= {});
      byTenant[w.fairnessKey] = (byTenant[w.fairnessKey] ?? 0) + 1;
    }
    return {
      key,
      capacity: this.capacity,
      inFlight: this.granted.size,
      waiting: this.waiting.length,
      waitingBy,
      granted: [...this.granted.values()].map((g) => ({ ...g })),
    };
  }
}
