// Outgoing callbacks of both services: one POST of JSON per event, a short time-out, every attempt
// logged and no failure thrown (a real service does not care whether the receiver was up). Callback
// faults reshape the delivery stream the way real networks and senders do: lost, doubled, late, out of order.
import { Agent, request } from 'undici';
import type { Scheduler } from './scheduler.js';
import type { CallbackFaultRule, CallbackLogEntry, ServiceKind } from './types.js';

export interface Delivery {
  kind: ServiceKind;
  url: string;
  taskId: string;
  status: string;
  payload: unknown;
}

const DEFAULT_REORDER_HOLD_MS = 1000;

export class CallbackDispatcher {
  private entries: CallbackLogEntry[] = [];
  private rules: Array<{ rule: CallbackFaultRule; remaining: number }> = [];
  /** Reorder: at most one held delivery per (kind, url), released after the next one of that key. */
  private held = new Map<string, { delivery: Delivery; timer: NodeJS.Timeout }>();
  private delayed = new Set<NodeJS.Timeout>();
  private inFlight = new Set<AbortController>();
  private readonly agent: Agent;
  private closed = false;

  constructor(
    private readonly scheduler: Scheduler,
    private readonly timeoutMs: number,
  ) {
    this.agent = new Agent({
      connect: { timeout: timeoutMs },
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      keepAliveTimeout: 1000,
    });
  }

  log(): CallbackLogEntry[] {
    return [...this.entries];
  }

  addFault(rule: CallbackFaultRule): void {
    const times = rule.times ?? 1;
    if (!(times > 0)) throw new Error(`callback fault times must be > 0 (got ${times})`);
    this.rules.push({ rule, remaining: times });
  }

  send(delivery: Delivery): void {
    if (this.closed) return;
    const key = `${delivery.kind} ${delivery.url}`;
    const held = this.held.get(key);
    if (held) {
      // This is "the next one": it goes first, the held one right after it.
      this.held.delete(key);
      this.scheduler.cancel(held.timer);
      void this.post(delivery).then(() => this.post(held.delivery, 'reorder'));
      return;
    }
    const rule = this.takeRule(delivery.kind);
    if (!rule) {
      void this.post(delivery);
      return;
    }
    switch (rule.mode) {
      case 'drop':
        this.record(delivery, Date.now(), { outcome: 'dropped', fault: 'drop' });
        return;
      case 'duplicate':
        void this.post(delivery, 'duplicate').then(() => this.post(delivery, 'duplicate'));
        return;
      case 'delay': {
        const timer = this.scheduler.after(rule.delayMs ?? DEFAULT_REORDER_HOLD_MS, () => {
          this.delayed.delete(timer);
          void this.post(delivery, 'delay');
        });
        this.delayed.add(timer);
        return;
      }
      case 'reorder': {
        // No later delivery may ever come (a review task has one callback): release after the hold.
        const timer = this.scheduler.after(rule.delayMs ?? DEFAULT_REORDER_HOLD_MS, () => {
          this.held.delete(key);
          void this.post(delivery, 'reorder');
        });
        this.held.set(key, { delivery, timer });
        return;
      }
    }
  }

  reset(): void {
    this.abortAll();
    this.entries = [];
    this.rules = [];
  }

  async close(): Promise<void> {
    this.closed = true;
    this.abortAll();
    await this.agent.destroy();
  }

  private abortAll(): void {
    for (const { timer } of this.held.values()) this.scheduler.cancel(timer);
    this.held.clear();
    for (const timer of this.delayed) this.scheduler.cancel(timer);
    this.delayed.clear();
    for (const ac of this.inFlight) ac.abort();
    this.inFlight.clear();
  }

  private takeRule(kind: ServiceKind): CallbackFaultRule | undefined {
    const hit = this.rules.find((r) => r.rule.kind === kind);
    if (!hit) return undefined;
    hit.remaining -= 1;
    if (hit.remaining <= 0) this.rules = this.rules.filter((r) => r !== hit);
    return hit.rule;
  }

  private async post(delivery: Delivery, fault?: string): Promise<void> {
    if (this.closed) return;
    const ac = new AbortController();
    this.inFlight.add(ac);
    const at = Date.now();
    try {
      const res = await request(delivery.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': 'review-video-sandbox' },
        body: JSON.stringify(delivery.payload),
        dispatcher: this.agent,
        signal: ac.signal,
      });
      await res.body.dump();
      const ok = res.statusCode >= 200 && res.statusCode < 300;
      this.record(delivery, at, { outcome: ok ? 'delivered' : 'rejected', httpStatus: res.statusCode, fault });
    } catch (err) {
      if (!ac.signal.aborted) {
        this.record(delivery, at, { outcome: 'error', fault, error: err instanceof Error ? err.message : String(err) });
      }
    } finally {
      this.inFlight.delete(ac);
    }
  }

  private record(
    d: Delivery,
    at: number,
    extra: Pick<CallbackLogEntry, 'outcome'> & Partial<Pick<CallbackLogEntry, 'httpStatus' | 'fault' | 'error'>>,
  ): void {
    const entry: CallbackLogEntry = {
      at,
      kind: d.kind,
      url: d.url,
      taskId: d.taskId,
      status: d.status,
      payload: d.payload,
      outcome: extra.outcome,
    };
    if (extra.httpStatus !== undefined) entry.httpStatus = extra.httpStatus;
    if (extra.fault !== undefined) entry.fault = extra.fault;
    if (extra.error !== undefined) entry.error = extra.error;
    this.entries.push(entry);
  }
}
