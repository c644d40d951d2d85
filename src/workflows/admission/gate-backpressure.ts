// What a gate learns when the provider refuses a granted create (429): its real capacity is lower than
// the one configured. Until one of the held slots is released, no more are granted than are held then
// (`ceiling`), and none before the Retry-After (without one: 1 s, doubled per refusal in a row, up to
// 32 s). So a capacity set too high costs at most one refusal per release instead of a storm.
import type { GateSnapshot } from '../../contract/admission.js';

/** The first pause after a refusal without Retry-After (then doubled per refusal in a row, up to 32 s). */
export const REFUSAL_BACKOFF_MS = 1_000;

export class BackPressure {
  #ceiling: number | undefined;
  #pausedUntil: number;
  /** Refusals since the last release. */
  #refusalsInRow: number;

  constructor(snapshot?: Pick<GateSnapshot, 'ceiling' | 'pausedUntil' | 'refusalsInRow'>) {
    this.#ceiling = snapshot?.ceiling;
    this.#pausedUntil = snapshot?.pausedUntil ?? 0;
    this.#refusalsInRow = snapshot?.refusalsInRow ?? 0;
  }

  /** No more slots than this may be held; undefined = the configured capacity. */
  get ceiling(): number | undefined {
    return this.#ceiling;
  }

  /** No grant before this time (ms epoch); 0 when none. */
  get pausedUntil(): number {
    return this.#pausedUntil;
  }

  /** A granted create was refused while `stillHeld` other slots were held. */
  refused(stillHeld: number, now: number, retryAfterMs: number | undefined): void {
    this.#ceiling = Math.max(1, stillHeld);
    this.#refusalsInRow++;
    const pauseMs = retryAfterMs ?? REFUSAL_BACKOFF_MS * 2 ** Math.min(this.#refusalsInRow - 1, 5);
    this.#pausedUntil = Math.max(this.#pausedUntil, now + pauseMs);
  }

  /** A held slot was released: a task ended at the provider, so the next grant may find room. */
  released(): void {
    this.#ceiling = undefined;
    this.#refusalsInRow = 0;
  }

  snapshot(): Pick<GateSnapshot, 'ceiling' | 'pausedUntil' | 'refusalsInRow'> {
    return {
      ...(this.#ceiling !== undefined ? { ceiling: this.#ceiling } : {}),
      ...(this.#pausedUntil > 0 ? { pausedUntil: this.#pausedUntil } : {}),
      ...(this.#refusalsInRow > 0 ? { refusalsInRow: this.#refusalsInRow } : {}),
    };
  }
}
