// What a gate learns when the provider refuses a granted create (429): its real capacity is lower than
// the one configured. No more slots are granted than were held then (`ceiling`), and none before the
// Retry-After (without one: 1 s, doubled per refusal in a row, up to 32 s). Once as many tasks as the
// ceiling have ended since, it rises by one, to find out whether the provider has room again. So a
// capacity set too high costs at most one refusal per `ceiling` releases instead of a storm, and a
// provider whose capacity grew back is used fully again.
import type { GateSnapshot } from '../../contract/admission.js';

/** The first pause after a refusal without Retry-After (then doubled per refusal in a row, up to 32 s). */
export const REFUSAL_BACKOFF_MS = 1_000;

export class BackPressure {
  #ceiling: number | undefined;
  #pausedUntil: number;
  /** Refusals since the last release. */
  #refusalsInRow: number;
  /** Releases since the last refusal or rise of the ceiling. */
  #releases: number;

  constructor(snapshot?: Pick<GateSnapshot, 'ceiling' | 'pausedUntil' | 'refusalsInRow' | 'releasesSinceRefusal'>) {
    this.#ceiling = snapshot?.ceiling;
    this.#pausedUntil = snapshot?.pausedUntil ?? 0;
    this.#refusalsInRow = snapshot?.refusalsInRow ?? 0;
    this.#releases = snapshot?.releasesSinceRefusal ?? 0;
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
    this.#releases = 0;
    const pauseMs = retryAfterMs ?? REFUSAL_BACKOFF_MS * 2 ** Math.min(this.#refusalsInRow - 1, 5);
    this.#pausedUntil = Math.max(this.#pausedUntil, now + pauseMs);
  }

  /** A held slot was released: a task ended at the provider. */
  released(capacity: number): void {
    this.#refusalsInRow = 0;
    if (this.#ceiling === undefined || ++this.#releases < this.#ceiling) return;
    this.#releases = 0;
    this.#ceiling = this.#ceiling + 1 >= capacity ? undefined : this.#ceiling + 1;
  }

  snapshot(): Pick<GateSnapshot, 'ceiling' | 'pausedUntil' | 'refusalsInRow' | 'releasesSinceRefusal'> {
    return {
      ...(this.#ceiling !== undefined ? { ceiling: this.#ceiling } : {}),
      ...(this.#pausedUntil > 0 ? { pausedUntil: this.#pausedUntil } : {}),
      ...(this.#refusalsInRow > 0 ? { refusalsInRow: this.#refusalsInRow } : {}),
      ...(this.#releases > 0 ? { releasesSinceRefusal: this.#releases } : {}),
    };
  }
}
