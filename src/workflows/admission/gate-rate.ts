// A gate's cap on creates per sliding window (VIDEO_MAX_CREATES_PER_MINUTE): the provider counts the
// creates that reach it per minute, besides tasks in flight. The gate counts each grant as the create it
// stands for. Until the run says when that create was answered, the gate assumes it reached the provider
// by `sendBy` (the grant's time plus a margin: the grant's signal, the run's workflow task, the
// activity's dispatch); a run whose create was answered later says so at once (slotSent), and every run
// says it with its release. The answer's time is after the provider counted the create, so a window kept
// from it never reopens before the provider's, and reopens as soon after it as the gate can know.
// A grant whose create the provider refused still counts, which errs on the safe side. Pure: the gate
// passes the times in.
import type { GateSnapshot, RateEntry } from '../../contract/admission.js';

export const RATE_WINDOW_MS = 60_000;
/** From a grant to its create answered, as the gate assumes until told: past it the run reports the time. */
export const RATE_MARGIN_MS = 1_000;

export class RateWindow {
  #limit: number | undefined;
  #windowMs: number;
  /**
   * The grants within the window, oldest first: when each one's create was answered (`sent`), or else
   * when it was granted. A bare time is a grant of a snapshot that named no request.
   */
  #entries: Array<RateEntry | number>;

  constructor(snapshot?: Pick<GateSnapshot, 'rate' | 'recentGrants'>) {
    this.#limit = snapshot?.rate?.limit;
    this.#windowMs = snapshot?.rate?.windowMs ?? RATE_WINDOW_MS;
    this.#entries = (snapshot?.recentGrants ?? []).map((e) => (typeof e === 'number' ? e : { ...e }));
  }

  set(rate: { limit: number; windowMs?: number } | undefined): void {
    this.#limit = rate?.limit;
    this.#windowMs = rate?.windowMs ?? RATE_WINDOW_MS;
  }

  get counted(): boolean {
    return this.#limit !== undefined;
  }

  /** When the entry leaves the window: a window after its create was answered, or after its assumed send. */
  #leavesAt(e: RateEntry | number): number {
    if (typeof e === 'number') return e + RATE_MARGIN_MS + this.#windowMs;
    return (e.sent ?? e.at + RATE_MARGIN_MS) + this.#windowMs;
  }

  /** How many more grants fit at `now` (Infinity without a limit). */
  room(now: number): number {
    if (this.#limit === undefined) return Infinity;
    this.#entries = this.#entries.filter((e) => this.#leavesAt(e) > now);
    return Math.max(0, this.#limit - this.#entries.length);
  }

  /** When the next grant fits: `now` when one does, else when the entry that leaves first has left. */
  reopensAt(now: number): number {
    if (this.room(now) > 0) return now;
    return Math.min(...this.#entries.map((e) => this.#leavesAt(e)));
  }

  /** Counts a grant made at `now`; by when its create is assumed sent (undefined without a limit). */
  record(requestId: string, now: number): number | undefined {
    if (this.#limit === undefined) return undefined;
    this.#entries.push({ requestId, at: now });
    return now + RATE_MARGIN_MS;
  }

  /**
   * The create of `requestId`'s latest grant was answered at `at`: it counts from then on, if that is
   * later than the gate assumed (a repeated or older report changes nothing).
   */
  sent(requestId: string, at: number): void {
    for (let i = this.#entries.length - 1; i >= 0; i--) {
      const e = this.#entries[i]!;
      if (typeof e === 'number' || e.requestId !== requestId) continue;
      e.sent = Math.max(e.sent ?? 0, at);
      return;
    }
  }

  snapshot(): Pick<GateSnapshot, 'rate' | 'recentGrants'> {
    return this.#limit === undefined
      ? {}
      : {
          rate: { limit: this.#limit, windowMs: this.#windowMs },
          recentGrants: this.#entries.map((e) => (typeof e === 'number' ? e : { ...e })),
        };
  }
}
