// Random faults, sustained for the whole run: one armed fault per operation (and per callback kind) at a
// time, re-armed after a random number of fault-free requests of that operation. Tying faults to traffic,
// not to the clock, keeps the pressure even: a lone job at the end of the run is not hit on every retry.
import type {
  Fault,
  FaultRule,
  Operation,
  RequestLogEntry,
  Sandbox,
  CallbackFaultRule,
  CallbackLogEntry,
} from 'temporal-review-video-sandbox';
import type { Rng } from './rng.js';

type Menu = ReadonlyArray<readonly [number, Omit<FaultRule, 'operation' | 'times'>]>;

const retryAfter = (status: 429 | 503, seconds: string): Fault => ({ type: 'status', status, retryAfter: seconds });

/**
 * What may go wrong with each operation. A 429/503 never commits (by contract it was not processed).
 * Every create and async submit carries a callback_url (the worker sends one whenever it has a receiver,
 * polling jobs included), so faults that commit hit every job: the task's callback is what confirms it.
 */
function menus(hangMs: number): Partial<Record<Operation, Menu>> {
  const anyCall: Menu = [
    [3, { fault: { type: 'status', status: 500 } }],
    [3, { fault: { type: 'status', status: 500, commit: true } }],
    [2, { fault: { type: 'hang', ms: hangMs } }],
    [2, { fault: { type: 'hang', ms: hangMs, commit: true } }],
    [2, { fault: { type: 'reset' } }],
    [2, { fault: { type: 'reset', commit: true } }],
    [2, { fault: { type: 'malformed', commit: true } }],
    [2, { fault: retryAfter(429, '1') }],
    [2, { fault: retryAfter(503, '1') }],
  ];
  const reads: Menu = [...anyCall, [1, { fault: retryAfter(503, '2') }], [1, { fault: { type: 'malformed' } }]];
  return {
    'review.submitAsync': anyCall,
    'review.submitSync': anyCall,
    'review.query': reads,
    'video.get': reads,
    'video.create': [...anyCall, [1, { fault: { type: 'malformed' } }]],
  };
}

const CALLBACK_MODES: ReadonlyArray<readonly [number, Omit<CallbackFaultRule, 'kind' | 'times'>]> = [
  [3, { mode: 'drop' }],
  [3, { mode: 'duplicate' }],
  [2, { mode: 'delay', delayMs: 2_500 }],
  [2, { mode: 'reorder', delayMs: 1_000 }],
];

interface Slot {
  armed: boolean;
  /** Faulted log entries seen so far for this slot; the armed fault is used once this passes `expectFaulted`. */
  faultedSeen: number;
  expectFaulted: number;
  /** Clean requests still to pass before the next fault. */
  cleanToGo: number;
}

export class FaultInjector {
  private readonly requestSlots = new Map<Operation, Slot>();
  private readonly callbackSlots = new Map<'review' | 'video', Slot>();
  private readonly menu: Partial<Record<Operation, Menu>>;
  private seenRequests = 0;
  private seenCallbacks = 0;
  private timer: NodeJS.Timeout | undefined;
  readonly armed = { requests: 0, callbacks: 0 };

  /** Requests the sandbox has logged so far (as of the last tick). */
  get requestsSeen(): number {
    return this.seenRequests;
  }

  constructor(
    private readonly sandbox: Sandbox,
    private readonly rng: Rng,
    private readonly between: { requests: [number, number]; callbacks: [number, number] },
    hangMs: number,
  ) {
    this.menu = menus(hangMs);
    for (const op of Object.keys(this.menu) as Operation[]) this.requestSlots.set(op, this.freshSlot(between.requests));
    for (const kind of ['review', 'video'] as const) this.callbackSlots.set(kind, this.freshSlot(between.callbacks));
  }

  start(tickMs = 250): void {
    this.timer ??= setInterval(() => this.tick(), tickMs);
  }

  /** No new faults; armed ones stay until used (they are few: one per operation). */
  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private freshSlot(range: [number, number]): Slot {
    return { armed: false, faultedSeen: 0, expectFaulted: 0, cleanToGo: this.rng.int(range[0], range[1]) };
  }

  private tick(): void {
    const requests = this.sandbox.requests();
    this.observeRequests(requests.slice(this.seenRequests));
    this.seenRequests = requests.length;
    const callbacks = this.sandbox.callbacks();
    this.observeCallbacks(callbacks.slice(this.seenCallbacks));
    this.seenCallbacks = callbacks.length;
    this.armRequests();
    this.armCallbacks();
  }

  private observeRequests(entries: RequestLogEntry[]): void {
    for (const e of entries) {
      const slot = this.requestSlots.get(e.operation);
      if (!slot) continue;
      if (e.fault) slot.faultedSeen++;
      else if (!slot.armed && slot.cleanToGo > 0) slot.cleanToGo--;
      if (slot.armed && slot.faultedSeen >= slot.expectFaulted) slot.armed = false;
    }
  }

  private observeCallbacks(entries: CallbackLogEntry[]): void {
    for (const e of entries) {
      const slot = this.callbackSlots.get(e.kind as 'review' | 'video');
      if (!slot) continue;
      if (e.fault) slot.faultedSeen++;
      else if (!slot.armed && slot.cleanToGo > 0) slot.cleanToGo--;
      if (slot.armed && slot.faultedSeen >= slot.expectFaulted) slot.armed = false;
    }
  }

  private armRequests(): void {
    for (const [operation, slot] of this.requestSlots) {
      if (slot.armed || slot.cleanToGo > 0) continue;
      const choice = this.rng.weighted(this.menu[operation]!);
      this.sandbox.addFault({ operation, times: 1, ...choice });
      this.armed.requests++;
      Object.assign(slot, {
        armed: true,
        expectFaulted: slot.faultedSeen + 1,
        cleanToGo: this.rng.int(...this.between.requests),
      });
    }
  }

  private armCallbacks(): void {
    for (const [kind, slot] of this.callbackSlots) {
      if (slot.armed || slot.cleanToGo > 0) continue;
      const choice = this.rng.weighted(CALLBACK_MODES);
      this.sandbox.setCallbackFault({ kind, times: 1, ...choice });
      this.armed.callbacks++;
      // A duplicated delivery shows as two faulted entries; a dropped, delayed or held one as one.
      const entries = choice.mode === 'duplicate' ? 2 : 1;
      Object.assign(slot, {
        armed: true,
        expectFaulted: slot.faultedSeen + entries,
        cleanToGo: this.rng.int(...this.between.callbacks),
      });
    }
  }
}
