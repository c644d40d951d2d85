// A webhook receiver for tests and the demo (issue 27): it records every notification it is sent (raw
// body and headers, to be verified by whoever reads them) and answers as scripted. Fault rules reshape
// what the sender sees the way real receivers fail: an error status, a slow answer, or a delivery taken
// and then answered with an error (as when the receiver's ack is lost), so that the sender delivers the
// same `webhook-id` again. Each rule is used `times` times, in insertion order, then gone. Like the rest
// of the sandbox it shares no code with what it receives from: it does not verify signatures itself.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type WebhookFault =
  /** Answer `status` (default 503) without taking the delivery. */
  | { mode: 'fail'; status?: number; times?: number }
  /** Wait `delayMs`, then take it and answer 204 (a sender with a shorter deadline has given up by then). */
  | { mode: 'delay'; delayMs: number; times?: number }
  /** Take it, then answer 500: the sender retries what was already received (a duplicate to deduplicate). */
  | { mode: 'duplicate'; times?: number };

export interface ReceivedWebhook {
  at: number;
  /** `webhook-id`, `webhook-timestamp`, `webhook-signature` (empty when absent). */
  id: string;
  timestamp: string;
  signature: string;
  headers: Record<string, string>;
  /** The raw body, as received. */
  body: string;
  /** What the receiver answered, and the fault that decided it. */
  status: number;
  fault?: WebhookFault['mode'];
  /** Whether the receiver took it (2xx, or a `duplicate` fault's first answer). */
  taken: boolean;
}

export interface WebhookReceiver {
  url: string;
  /** Every request, in arrival order. */
  received(): ReceivedWebhook[];
  /** Requests being held by a `delay` fault (arrived, not yet answered). */
  held(): number;
  /** The deliveries taken, one per `webhook-id` (the first), as a receiver that deduplicates keeps them. */
  unique(): ReceivedWebhook[];
  addFault(rule: WebhookFault): void;
  reset(): void;
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 1024 * 1024;

export async function startWebhookReceiver(options: { host?: string; port?: number } = {}): Promise<WebhookReceiver> {
  let entries: ReceivedWebhook[] = [];
  let rules: Array<{ rule: WebhookFault; remaining: number }> = [];
  const timers = new Set<NodeJS.Timeout>();
  let held = 0;

  const takeRule = (): WebhookFault | undefined => {
    const hit = rules[0];
    if (!hit) return undefined;
    hit.remaining -= 1;
    if (hit.remaining <= 0) rules = rules.slice(1);
    return hit.rule;
  };

  const handle = (req: IncomingMessage, res: ServerResponse, body: string) => {
    const at = Date.now();
    const headers = Object.fromEntries(
      Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : (v ?? '')]),
    );
    const rule = takeRule();
    // Recorded even when the sender gave up meanwhile: the receiver did take it.
    const record = (status: number, taken: boolean) => {
      entries.push({
        at,
        id: headers['webhook-id'] ?? '',
        timestamp: headers['webhook-timestamp'] ?? '',
        signature: headers['webhook-signature'] ?? '',
        headers,
        body,
        status,
        ...(rule ? { fault: rule.mode } : {}),
        taken,
      });
      if (!res.destroyed) res.writeHead(status).end();
    };
    if (!rule) return record(204, true);
    if (rule.mode === 'fail') return record(rule.status ?? 503, false);
    if (rule.mode === 'duplicate') return record(500, true);
    held++;
    const timer = setTimeout(() => {
      timers.delete(timer);
      held--;
      record(204, true);
    }, rule.delayMs);
    timers.add(timer);
  };

  const server: Server = createServer((req, res) => {
    if (req.method !== 'POST') return void res.writeHead(405).end();
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= MAX_BODY_BYTES) chunks.push(c);
    });
    req.on('end', () => {
      if (size > MAX_BODY_BYTES) return void res.writeHead(413).end();
      handle(req, res, Buffer.concat(chunks).toString('utf8'));
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve));
  const { address, port } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;

  return {
    url: `http://${host}:${port}/webhooks`,
    received: () => [...entries],
    held: () => held,
    unique: () => {
      const seen = new Set<string>();
      return entries.filter((e) => e.taken && !seen.has(e.id) && seen.add(e.id));
    },
    addFault(rule) {
      const times = rule.times ?? 1;
      if (!(times > 0)) throw new Error(`webhook fault times must be > 0 (got ${times})`);
      rules.push({ rule, remaining: times });
    },
    reset() {
      entries = [];
      rules = [];
    },
    async close() {
      for (const t of timers) clearTimeout(t);
      timers.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
