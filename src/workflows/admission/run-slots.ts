// The quota slots of one run's remote tasks (a review batch's, the video create's): which request each
// was queued with, which still wait, and the grants the gates sent the run. Kept per run, never at module
// level (workflow modules are shared by every run of a worker).
import { SlotGrants } from './requester.js';

/** Which of the run's remote tasks holds a quota slot: a review batch (by index) or the video create. */
export type SlotOwner = `review batch ${number}` | 'video create';
export interface QuotaSlot {
  key: string;
  requestId: string;
  /** When the slot's create (submit) was answered: the gate's rate window counts it from then. */
  sentAt?: number;
}

/** A task's slot as its queries see it: the query that reads the task final gives it back itself. */
export interface SlotHandOff {
  /** The slot still held, if any. */
  held(): QuotaSlot | undefined;
  /** A query gave it back: the run no longer holds it (and sends no release of its own). */
  released(): void;
}

export class RunSlots {
  readonly #slots = new Map<SlotOwner, QuotaSlot>();
  readonly #waiting = new Set<SlotOwner>();
  #grants: SlotGrants | undefined;

  /** Made when a task first waits; a grant that came earlier is buffered by the SDK until then. */
  get grants(): SlotGrants {
    return (this.#grants ??= new SlotGrants());
  }

  /** `owner` was granted `slot` in the answer to its ask: held, never waiting. */
  held(owner: SlotOwner, slot: QuotaSlot): void {
    this.#slots.set(owner, slot);
  }

  queued(owner: SlotOwner, slot: QuotaSlot): void {
    this.#slots.set(owner, slot);
    this.#waiting.add(owner);
  }

  /** `owner` was granted its slot; true when no task of the run waits any more. */
  admitted(owner: SlotOwner): boolean {
    this.#waiting.delete(owner);
    return this.#waiting.size === 0;
  }

  /** `owner`'s create (submit) was answered at `at` (the latest answer, after a resubmit). */
  sent(owner: SlotOwner, at: number): void {
    const slot = this.#slots.get(owner);
    if (slot) this.#slots.set(owner, { ...slot, sentAt: at });
  }

  /** `owner`'s slot, for the queries of its task to give back (SlotHandOff). */
  handOff(owner: SlotOwner): SlotHandOff {
    return {
      held: () => (this.#waiting.has(owner) ? undefined : this.#slots.get(owner)),
      released: () => void this.#slots.delete(owner),
    };
  }

  requestIdOf(owner: SlotOwner): string | undefined {
    return this.#slots.get(owner)?.requestId;
  }

  /** The slots to give back: `owner`'s (its task is final), or all left; each is returned once. */
  take(owner?: SlotOwner): QuotaSlot[] {
    const owners = owner === undefined ? [...this.#slots.keys()] : [owner];
    const slots = owners.flatMap((o) => this.#slots.get(o) ?? []);
    for (const o of owners) this.#slots.delete(o);
    return slots;
  }
}
