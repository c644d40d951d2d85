// A real node:http server on a free port for the client tests: it records every request (headers, body)
// and every socket it accepts, so a test can prove that nothing left the process.
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export type Handler = (req: IncomingMessage, res: ServerResponse, received: ReceivedRequest) => void;

export interface TestServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  received: ReceivedRequest[];
  /** Sockets accepted so far (a request that never left the process opens none). */
  connections(): number;
  /** Replaces the handler for the requests that follow. */
  handle(handler: Handler): void;
  close(): Promise<void>;
}

export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

/** Answers like a well-behaved pair of services, enough for the happy paths of both clients. */
export const defaultHandler: Handler = (req, res) => {
  const url = req.url ?? '';
  if (url.endsWith('/v1/task/create')) return json(res, 200, { id: 'cgt-1' });
  if (url.includes('/v1/task/get/')) return json(res, 200, { id: 'cgt-1', status: 'running' });
  if (url.endsWith('/api/asset/upload/async'))
    return json(res, 202, { code: 202, task_id: 'rt-1', status: 'pending', message: 'accepted' });
  if (url.endsWith('/api/asset/upload/sync') || url.includes('/api/task/')) {
    return json(res, 200, { code: 200, task_id: 'rt-1', status: 'processing', total_count: 1, done_count: 0 });
  }
  return json(res, 200, { ok: true });
};

export async function startTestServer(handler: Handler = defaultHandler): Promise<TestServer> {
  let current = handler;
  let sockets = 0;
  const received: ReceivedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r: ReceivedRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      received.push(r);
      current(req, res, r);
    });
  });
  server.on('connection', () => sockets++);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    connections: () => sockets,
    handle: (h) => {
      current = h;
    },
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

/** A port on which nothing listens (bound, then released). */
export async function refusedPort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, 'close');
  return port;
}
