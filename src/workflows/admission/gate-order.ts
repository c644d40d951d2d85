// Who gets the next free slot of an admission gate (gate-state.ts): the highest priority first (1 before
// 5); within one priority, the tenant holding the smallest share of the slots for its weight, counting the
// grant it is about to get ((held + 1) / weight); ties go to the tenant served least recently (one never
// served first), then to the oldest request. FIFO within a tenant. Pure: a unit test of GateState runs it.
import type { GrantedSlot, SlotRequest } from '../../contract/admission.js';

/** Every waiting request in the order it would be granted if no slot were released meanwhile. */
export function* grantOrder(
  waiting: readonly SlotRequest[],
  granted: Iterable<Pick<GrantedSlot, 'fairnessKey'>>,
  lastServed: ReadonlyMap<string, number>,
  grants: number,
): Generator<SlotRequest> {
  const held = new Map<string, number>();
  for (const g of granted) held.set(g.fairnessKey, (held.get(g.fairnessKey) ?? 0) + 1);
  const served = new Map(lastServed);
  let count = grants;
  for (let priority = 1; priority <= 5; priority++) {
    // Each tenant's requests of this priority, oldest first, with their place in arrival order.
    const queues = new Map<string, Array<{ r: SlotRequest; seq: number }>>();
    waiting.forEach((r, seq) => {
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

/** How many requests come before `requestId` in `order`; -1 when it is not there. */
export function placeIn(order: Iterable<SlotRequest>, requestId: string): number {
  let ahead = 0;
  for (const r of order) {
    if (r.requestId === requestId) return ahead;
    ahead++;
  }
  return -1;
}
