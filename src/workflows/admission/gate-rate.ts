// A gate's cap on grants per sliding window (VIDEO_MAX_CREATES_PER_MINUTE): the provider counts creates
// per minute besides tasks in flight. Each grant is a create about to be sent, which reaches the provider
// a little later (the grant's signal, the activity's scheduling): a grant leaves the window a margin after
// the window itself, so that the create it stood for has left the provider's too. A grant whose create
// the provider refused still counts, which errs on the safe side. Pure: the gate passes the times in.
import type { GateSnapshot } from '../../contract/admission.js';

export const RATE_WINDOW_MS = 60_000;
/** From a grant to its create reaching the provider: well above a second is a struggling worker. */
export const RATE_MARGIN_MS = 1_000;

export class RateWindow {
  #limit: number | undefined;
  #windowMs: number;
  /** Grant times within the window, oldest first. */
  #times: number[];

  constructor(snapshot?: Pick<GateSnapshot, 'rate' | 'recentGrants'>) {
    this.#limit = snapshot?.rate?.limit;
    this.#windowMs = snapshot?.rate?.windowMs ?? RATE_WINDOW_MS;
    this.#times = [...(snapshot?.recentGrants ?? [])];
  }

  set(rate: { limit: number; windowMs?: number } | undefined): void {
    this.#limit = rate?.limit;
    this.#windowMs = rate?.windowMs ?? RATE_WINDOW_MS;
  }

  /** How many more grants fit at `now` (Infinity without a limit). */
  room(now: number): number {
    if (this.#limit === undefined) return Infinity;
    this.#times = this.#times.filter((t) => t > now - this.#windowMs - RATE_MARGIN_MS);
    return Math.max(0, this.#limit - this.#times.length);
  }

  /** When the next grant fits: `now` when one does, else when the oldest grant leaves the window (and margin). */
  reopensAt(now: number): number {
    return this.room(now) > 0 ? now : this.#times[0]! + this.#windowMs + RATE_MARGIN_MS;
  }

  record(now: number): void {
    if (this.#limit !== undefined) this.#times.push(now);
  }

  snapshot(): Pick<GateSnapshot, 'rate' | 'recentGrants'> {
    return this.#limit === undefined
      ? {}
      : { rate: { limit: this.#limit, windowMs: this.#windowMs }, recentGrants: [...this.#times] };
  }
}
