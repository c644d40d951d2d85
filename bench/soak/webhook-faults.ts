// The webhook receiver's own faults (issue 27): the pressure fault-injector.ts puts on the services, put on
// the notifications. One fault armed at a time, re-armed after a random number of clean deliveries (tied
// to traffic, not the clock, like the others), from the soak's seed. What each one makes the sender do:
// a refusal (5xx, 429) is retried; a duplicate (taken, then answered 500) and a delay past the sender's
// deadline are retried although the receiver took them, so the same webhook-id arrives again; a short
// delay is answered in time.
import { NOTIFY_TIMEOUT_MS } from '../../src/activities/notify.js';
import type { ReceivedWebhook, WebhookFault, WebhookReceiver } from 'temporal-review-video-sandbox';
import type { Rng } from './rng.js';

/** A delay answered in time, and one held past the deadline of an attempt (the sender gives up, the receiver takes it). */
export const WEBHOOK_DELAYS_MS = { short: 2_000, pastDeadline: NOTIFY_TIMEOUT_MS + 1_000 } as const;

const MENU: ReadonlyArray<readonly [number, WebhookFault]> = [
  [3, { mode: 'fail', status: 503 }],
  [2, { mode: 'fail', status: 500 }],
  [1, { mode: 'fail', status: 429 }],
  [3, { mode: 'duplicate' }],
  [2, { mode: 'delay', delayMs: WEBHOOK_DELAYS_MS.short }],
  [1, { mode: 'delay', delayMs: WEBHOOK_DELAYS_MS.pastDeadline }],
];

/** A label per fault, for the report: `fail:503`, `duplicate`, `delay:2000`. */
export function webhookFaultLabel(f: WebhookFault): string {
  return f.mode === 'fail' ? `fail:${f.status ?? 503}` : f.mode === 'delay' ? `delay:${f.delayMs}` : f.mode;
}

export class WebhookFaults {
  private armed = false;
  private cleanToGo: number;
  private seen = 0;
  private timer: NodeJS.Timeout | undefined;
  /** Faults armed, by label (each one is used by the next delivery that arrives). */
  readonly armedByLabel: Record<string, number> = {};

  constructor(
    private readonly receiver: Pick<WebhookReceiver, 'received' | 'addFault'>,
    private readonly rng: Rng,
    private readonly between: [number, number],
  ) {
    this.cleanToGo = rng.int(...between);
  }

  start(tickMs = 250): void {
    this.timer ??= setInterval(() => this.tick(), tickMs);
  }

  /** No new faults: the deliveries still to come settle on a receiver that answers them. */
  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** One step: count what arrived since the last one, arm the next fault when its turn has come. */
  tick(): void {
    const received = this.receiver.received();
    this.observe(received.slice(this.seen));
    this.seen = received.length;
    if (this.armed || this.cleanToGo > 0) return;
    const fault = this.rng.weighted(MENU);
    this.receiver.addFault({ ...fault, times: 1 });
    const label = webhookFaultLabel(fault);
    this.armedByLabel[label] = (this.armedByLabel[label] ?? 0) + 1;
    this.armed = true;
    this.cleanToGo = this.rng.int(...this.between);
  }

  // A delayed delivery is logged when it is answered: the fault stays armed until then.
  private observe(entries: ReceivedWebhook[]): void {
    for (const e of entries) {
      if (e.fault) this.armed = false;
      else if (!this.armed && this.cleanToGo > 0) this.cleanToGo--;
    }
  }
}
