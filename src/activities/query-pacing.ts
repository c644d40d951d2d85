// Keeps queries of one task at least the minimum interval apart, and never earlier than a Retry-After,
// even when a callback confirmation and a polling attempt want the same task at about the same time.
// In-process: a worker restart forgets it, but a restarted attempt is itself delayed by the retry policy.
export class QueryPacer {
  private readonly notBefore = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Waits until the task may be queried, then reserves the slot for `minIntervalMs`. */
  async acquire(key: string, minIntervalMs: number): Promise<void> {
    const wait = (this.notBefore.get(key) ?? 0) - this.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    this.notBefore.set(key, this.now() + minIntervalMs);
    if (this.notBefore.size > 10_000) this.evictExpired();
  }

  /** A Retry-After (or any service-asked delay) pushes the next allowed query further out. */
  defer(key: string, delayMs: number): void {
    this.notBefore.set(key, Math.max(this.notBefore.get(key) ?? 0, this.now() + delayMs));
  }

  private evictExpired(): void {
    const now = this.now();
    for (const [k, t] of this.notBefore) if (t < now) this.notBefore.delete(k);
  }
}
