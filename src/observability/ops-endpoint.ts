// GET /metrics (the SDK exporter's text, passed through), /healthz (the process answers) and /readyz (the
// caller's check: 200 or 503 with the reason). The worker serves these on PROMETHEUS_BIND_ADDRESS; the
// callback receiver mounts `handleOpsRequest` on its own port.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { splitHostPort } from './settings.js';

export interface OpsRoutes {
  /** The exporter's /metrics address; undefined = 404. */
  metricsUrl: string | undefined;
  /** Resolves to undefined when ready, else why not (returned with 503). */
  ready(): Promise<string | undefined>;
}

function send(res: ServerResponse, status: number, body: string, type = 'text/plain; charset=utf-8') {
  res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' }).end(body);
}

/** True when the request was an ops route (answered here); false for anything else. */
export function handleOpsRequest(req: IncomingMessage, res: ServerResponse, routes: OpsRoutes): boolean {
  if (req.method !== 'GET') return false;
  const path = (req.url ?? '').split('?')[0];
  if (path === '/healthz') {
    send(res, 200, 'ok\n');
    return true;
  }
  if (path === '/readyz') {
    routes.ready().then(
      (why) => (why === undefined ? send(res, 200, 'ready\n') : send(res, 503, `not ready: ${why}\n`)),
      () => send(res, 503, 'not ready: check failed\n'),
    );
    return true;
  }
  if (path === '/metrics') {
    if (!routes.metricsUrl) send(res, 404, 'metrics are off\n');
    else
      fetch(routes.metricsUrl, { signal: AbortSignal.timeout(5_000) })
        .then(async (r) => send(res, r.status, await r.text(), r.headers.get('content-type') ?? 'text/plain'))
        .catch(() => send(res, 503, 'metrics exporter unavailable\n'));
    return true;
  }
  return false;
}

/** A readiness check that asks at most once per `ttlMs` (probes come every few seconds, from many places). */
export function cachedCheck(check: () => Promise<void>, ttlMs = 2_000): () => Promise<boolean> {
  let last: { at: number; ok: Promise<boolean> } | undefined;
  return () => {
    if (!last || Date.now() - last.at > ttlMs) {
      last = {
        at: Date.now(),
        ok: check().then(
          () => true,
          () => false,
        ),
      };
    }
    return last.ok;
  };
}

export async function startOpsServer(address: string, routes: OpsRoutes): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    if (!handleOpsRequest(req, res, routes)) send(res, 404, 'not found\n');
  });
  const { host, port } = splitHostPort(address);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  server.unref();
  const bound = server.address() as AddressInfo;
  const shown = bound.address.includes(':') ? `[${bound.address}]` : bound.address;
  return { url: `http://${shown}:${bound.port}`, server };
}
