// Callbacks that reach the run in one activation (one workflow task). More than one at once can mean that
// a workflow task which already ran a confirming query for one of them failed (the server refuses to
// close a run while a signal came in meanwhile) and now runs again, maybe on another worker that cannot
// know of that query: the tasks they name then wait a full minimum interval before their next query.

export class CallbackBurst {
  /** Workflow time of the activation that delivered the last callback (one value per activation). */
  #at = Number.NaN;
  #count = 0;
  #keys: string[] = [];

  /** Notes a callback naming `key`; returns the keys to space out when this activation holds several. */
  add(key: string): string[] {
    const now = Date.now();
    if (now !== this.#at) {
      this.#at = now;
      this.#count = 0;
      this.#keys = [];
    }
    this.#count++;
    if (!this.#keys.includes(key)) this.#keys.push(key);
    return this.#count > 1 ? [...this.#keys] : [];
  }
}
