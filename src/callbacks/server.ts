// The standalone callback receiver: the handler in its own node:http server, plus GET /healthz.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createCallbackHandler, type CallbackHandlerOptions } from './handler.js';

export interface CallbackServer {
  server: Server;
  /** e.g. http://127.0.0.1:8787 */
  url: string;
  close(): Promise<void>;
}

export async function startCallbackServer(
  options: CallbackHandlerOptions & { host?: string; port?: number },
): Promise<CallbackServer> {
  const handle = createCallbackHandler(options);
  const server = createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/healthz') {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      return;
    }
    void handle(req, res);
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
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
