// Every timer of the sandbox goes through here: unref'd so a forgotten sandbox never keeps a process
// alive, and tracked so close()/reset() can clear them all (no leaked handles in tests).

export class Scheduler {
  private readonly timers = new Set<NodeJS.Timeout>();
  private closed = false;

  after(ms: number, fn: () => void): NodeJS.Timeout {
    const timer = setTimeout(
      () => {
        this.timers.delete(timer);
        fn();
      },
      Math.max(0, ms),
    );
    timer.unref();
    if (this.closed) clearTimeout(timer);
    else this.timers.add(timer);
    return timer;
  }

  cancel(timer: NodeJS.Timeout | undefined): void {
    if (!timer) return;
    clearTimeout(timer);
    this.timers.delete(timer);
  }

  /** Resolves after ms; never resolves once the scheduler is closed (its awaiter is abandoned). */
  sleep(ms: number): Promise<void> {
    if (ms <= 0) return Promise.resolve();
    return new Promise((resolve) => this.after(ms, resolve));
  }

  clearAll(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }

  close(): void {
    this.closed = true;
    this.clearAll();
  }
}
