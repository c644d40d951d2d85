// Raw HTTP helpers for the sandbox tests: undici requests (no project client: the sandbox is tested as
// an independent oracle), a local callback receiver, and small waits.
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, request } from 'undici';
import type { Sandbox } from '../../src/index.js';

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  // Tests read many nested wire fields; the assertions check them.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a wire body, read field by field by the assertions
  json: any;
}

export class Http {
  private readonly agent = new Agent({ keepAliveTimeout: 200 });

  async call(
    method: string,
    url: string,
    init: { headers?: Record<string, string>; json?: unknown; body?: string; timeoutMs?: number } = {},
  ): Promise<Answer> {
    const body = init.json !== undefined ? JSON.stringify(init.json) : init.body;
    // undici's own time-outs tick coarsely (about 0.5 s): an abort signal is exact.
    const timeouts = init.timeoutMs !== undefined ? { signal: AbortSignal.timeout(init.timeoutMs) } : {};
    const res = await request(url, { method, headers: init.headers, body, dispatcher: this.agent, ...timeouts });
    const text = await res.body.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: res.statusCode, headers: res.headers, text, json };
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}

export const trackId = (): string => randomBytes(16).toString('hex');

export function reviewHeaders(sb: Sandbox): Record<string, string> {
  return { 'x-access-token': sb.accessToken, 'x-track-id': trackId(), 'content-type': 'application/json' };
}

export function videoHeaders(sb: Sandbox): Record<string, string> {
  return { authorization: `Bearer ${sb.apiKey}`, 'content-type': 'application/json' };
}

export async function waitFor<T>(
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 5_000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export interface Received {
  path: string;
  at: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a wire body, read field by field by the assertions
  body: any;
}

/** A local callback receiver: records every POST; answers `status` (200 by default). */
export async function startReceiver(): Promise<{
  url: string;
  received: Received[];
  status: number;
  close(): Promise<void>;
}> {
  const received: Received[] = [];
  const state = { status: 200 };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({
        path: req.url ?? '/',
        at: Date.now(),
        body: JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null'),
      });
      res.writeHead(state.status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    get status() {
      return state.status;
    },
    set status(s: number) {
      state.status = s;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Submits one async review and waits until the task is final; returns the final query JSON. */
export async function reviewToEnd(
  http: Http,
  sb: Sandbox,
  urls: string[],
  extra: Record<string, unknown> = {},
): Promise<Answer['json']> {
  const submit = await http.call('POST', `${sb.reviewBaseUrl}/api/asset/upload/async`, {
    headers: reviewHeaders(sb),
    json: { images: urls, ...extra },
  });
  if (submit.status !== 202) throw new Error(`submit answered ${submit.status}: ${submit.text}`);
  const taskId = submit.json.task_id as string;
  return waitFor(
    async () => {
      const q = await http.call('GET', `${sb.reviewBaseUrl}/api/task/${taskId}`, { headers: reviewHeaders(sb) });
      return ['completed', 'failed', 'cancelled'].includes(q.json.status) ? q.json : undefined;
    },
    5_000,
    `review task ${taskId} to end`,
  );
}

export function createBody(mediaUrl?: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const content: unknown[] = [{ type: 'text', text: 'a walk on the beach' }];
  if (mediaUrl) content.push({ type: 'image_url', image_url: { url: mediaUrl }, role: 'reference_image' });
  return { model: 'video-model-1', content, ...extra };
}
