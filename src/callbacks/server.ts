// The standalone callback receiver: the handler in its own node:http server, plus GET /healthz (the
// process answers), /readyz (Temporal reachable, 503 while draining) and /metrics (when given the SDK
// exporter's address). `drain()` is the SIGTERM path: readiness turns 503 at once, new callbacks are still
// accepted for `delayMs` (while the load balancer notices), then the listener closes and every callback in
// flight finishes, so each one answered 202 has become a signal before the process exits.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cachedCheck, handleOpsRequest } from '../observability/ops-endpoint.js';
import { createCallbackHandler, type CallbackHandlerOptions } from './handler.js';

export interface CallbackServerOptions extends CallbackHandlerOptions {
  host?: string;
  port?: number;
  /** The SDK's Prometheus exporter (see observability/runtime.ts), served as /metrics; unset = 404. */
  metricsUrl?: string | undefined;
}

export interface CallbackServer {
  server: Server;
  /** e.g. http://127.0.0.1:8787 */
  url: string;
  /** Callbacks being handled now. */
  readonly inFlight: number;
  /** Readiness 503 now; after `delayMs`, stop accepting and wait for the callbacks in flight. */
  drain(delayMs?: number): Promise<void>;
  /** Immediate stop: open connections are cut (tests, the demo). */
  close(): Promise<void>;
}

export async function startCallbackServer(options: CallbackServerOptions): Promise<CallbackServer> {
  const handle = createCallbackHandler(options);
  let draining = false;
  let inFlight = 0;
  let idle: (() => void) | undefined;
  const temporalUp = cachedCheck(async () => void (await options.client.workflowService.getSystemInfo({})));
  const routes = {
    metricsUrl: options.metricsUrl,
    ready: async () => (draining ? 'draining' : (await temporalUp()) ? undefined : 'Temporal unreachable'),
  };
  const server = createServer((req, res) => {
    if (draining) res.setHeader('connection', 'close');
    if (handleOpsRequest(req, res, routes)) return;
    inFlight++;
    void handle(req, res).finally(() => {
      if (--inFlight === 0) idle?.();
    });
  });
  // Slow or idle senders must not pin sockets: bounded header/request times.
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 8787, options.host ?? '127.0.0.1', () => resolve());
  });
  const { address, port } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;
  return {
    server,
    url: `http://${host}:${port}`,
    get inFlight() {
      return inFlight;
    },
    async drain(delayMs = 0) {
      draining = true;
      if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs));
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      if (inFlight > 0) await new Promise<void>((resolve) => (idle = resolve));
      server.closeIdleConnections();
      // Keep-alive sockets that carried a callback close after their response (connection: close).
      const cut = setTimeout(() => server.closeAllConnections(), 2_000);
      await closed;
      clearTimeout(cut);
    },
    close: () =>
      new Promise<void>((resolve) => {
        draining = true;
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
