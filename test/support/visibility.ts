// Shared by the client tests: waiting for the (eventually consistent) visibility store.
import type { Client } from '@temporalio/client';

/** Runs a visibility query until `accept` holds for its workflow ids, or fails after `timeoutMs`. */
export async function waitForList(
  client: Client,
  query: string,
  accept: (ids: string[]) => boolean,
  timeoutMs = 30_000,
): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ids: string[] = [];
    for await (const w of client.workflow.list({ query })) ids.push(w.workflowId);
    if (accept(ids)) return ids;
    if (Date.now() > deadline)
      throw new Error(`list query ${query} still gave [${ids.join(', ')}] after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Polls `read` until `accept` holds, or fails after `timeoutMs`. */
export async function waitFor<T>(
  what: string,
  read: () => Promise<T>,
  accept: (t: T) => boolean,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let value: T | undefined;
    try {
      value = await read();
      if (accept(value)) return value;
    } catch (err) {
      if (Date.now() > deadline) throw err;
    }
    if (Date.now() > deadline)
      throw new Error(`${what}: not reached after ${timeoutMs} ms (last: ${JSON.stringify(value)})`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
