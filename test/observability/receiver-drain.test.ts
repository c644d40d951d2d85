// SIGTERM on the receiver process: readiness turns 503 at once, callbacks keep being accepted during the
// drain delay, then the listener closes and the process exits 0. Every callback answered 202 is a signal
// in the workflow's history: none accepted is lost.
import { randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, inject, it } from 'vitest';
import { callbackUrlFor } from '../support/callback-urls.js';
import { freePort } from '../../src/dev/temporal-dev-server.js';
import { imageJob } from '../support/stack.js';
import { temporalAddress, testClient } from '../support/temporal.js';
import { startReceiverProcess } from './processes.js';

describe('callback receiver drain on SIGTERM', () => {
  it('turns /readyz to 503, loses no accepted callback, and exits 0', async () => {
    const client = await testClient();
    // No worker polls this queue: the run stays open and takes every signal.
    const handle = await client.workflow.start('ReviewThenGenerate', {
      taskQueue: `drain-${randomUUID()}`,
      workflowId: `drain-${randomUUID()}`,
      args: [imageJob()],
    });
    const secret = `cb-secret-${randomBytes(16).toString('hex')}`;
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const receiver = await startReceiverProcess({
      TEMPORAL_ADDRESS: temporalAddress(),
      TEMPORAL_NAMESPACE: inject('temporalNamespace'),
      CALLBACK_HOST: '127.0.0.1',
      CALLBACK_PORT: String(port),
      CALLBACK_SECRET: secret,
      CALLBACK_DRAIN_DELAY_MS: '1500',
      LOG_FORMAT: 'json',
    });
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    const url = callbackUrlFor(base, secret, 'video', handle);
    const statuses: number[] = [];
    let sending = true;
    // Senders keep posting until the listener refuses them; each 202 must become a signal.
    const senders = Array.from({ length: 8 }, async (_, i) => {
      for (let n = 0; sending; n++) {
        try {
          const res = await fetch(url, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ id: `cgt-${i}-${n}`, status: 'running' }),
          });
          statuses.push(res.status);
          await res.text();
        } catch {
          return; // connection refused: the listener is closed
        }
      }
    });
    await new Promise((r) => setTimeout(r, 300));
    receiver.kill('SIGTERM');
    // Readiness turns 503 as soon as the process takes the signal (on a loaded machine, not within a fixed
    // 200 ms), and stays so while callbacks are still accepted during the drain delay.
    let ready = await fetch(`${base}/readyz`);
    for (const end = Date.now() + 10_000; ready.status === 200 && Date.now() < end;) {
      await ready.text();
      await new Promise((r) => setTimeout(r, 50));
      ready = await fetch(`${base}/readyz`);
    }
    expect(ready.status).toBe(503);
    expect(await ready.text()).toContain('draining');
    expect(await receiver.exited).toBe(0);
    sending = false;
    await Promise.all(senders);

    const accepted = statuses.filter((s) => s === 202).length;
    expect(accepted).toBeGreaterThan(0);
    expect(statuses.every((s) => s === 202)).toBe(true);
    const history = await handle.fetchHistory();
    const signals = (history.events ?? []).filter((e) => e.workflowExecutionSignaledEventAttributes).length;
    expect(signals).toBe(accepted);
    expect(receiver.output()).toContain('callback receiver: stopped');
    await handle.terminate('test done');
  }, 60_000);
});
