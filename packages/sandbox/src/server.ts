// HTTP plumbing shared by both emulated services: body reading, the request log, fault injection,
// latency, and hand-off of `/__sandbox/` paths to the inspection API (unauthenticated, unlogged).
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { malformedReply, statusFaultReply } from './fault-replies.js';
import { errorReply, type Reply } from './reply.js';
import { faultLabel, type FaultBook } from './faults.js';
import type { Scheduler } from './scheduler.js';
import { requestTarget } from './request-target.js';
import type { Fault, GatewayCall, Operation, RequestLogEntry, ServiceKind } from './types.js';
import type { RequestLog } from './request-log.js';

export interface RouteInfo {
  operation: Operation;
  taskId?: string;
  gateway?: GatewayCall;
}

export interface ServiceRequest {
  method: string;
  url: URL;
  headers: IncomingHttpHeaders;
  rawBody: string;
  /** Parsed JSON, the raw text when not JSON, undefined when empty. */
  body: unknown;
  bodyIsJson: boolean;
  route: RouteInfo;
}

export interface ServiceHandler {
  kind: ServiceKind;
  route(method: string, pathname: string): RouteInfo;
  handle(req: ServiceRequest): Promise<Reply>;
  /** The error envelope of the path's API family, applied to every answer, fault answers included. */
  shapeError?(pathname: string, reply: Reply): Reply;
  /** The event stream `reply` cut by a `streamError` fault (gateway-streams.ts); undefined: not a stream. */
  failStream?(pathname: string, reply: Reply, fault: Extract<Fault, { type: 'streamError' }>): Reply | undefined;
}

export type InspectHandler = (method: string, url: URL, body: unknown) => Promise<Reply>;

export interface ServerDeps {
  log: RequestLog;
  faults: FaultBook;
  scheduler: Scheduler;
  latencyMs: number;
  inspect: InspectHandler;
}

/**
 * How long an idle kept-alive connection stays open. Longer than any client's own idle time-out (undici's
 * is 4 s), so the client, never the sandbox, closes it: a server that closes an idle socket while a client
 * sends on it resets that request (ECONNRESET), which a real API behind a load balancer does not do.
 */
const KEEP_ALIVE_MS = 65_000;

export function createServiceServer(handler: ServiceHandler, deps: ServerDeps): Server {
  const server = createServer((req, res) => {
    serve(handler, deps, req, res).catch((err: unknown) => {
      if (!res.headersSent && !res.destroyed) {
        write(
          res,
          errorReply(500, 'internal_error', `sandbox error: ${err instanceof Error ? err.message : String(err)}`),
        );
      }
    });
  });
  server.keepAliveTimeout = KEEP_ALIVE_MS;
  return server;
}

export function listen(server: Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

export function stop(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

async function serve(
  handler: ServiceHandler,
  deps: ServerDeps,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const at = Date.now();
  const rawBody = await readRequestBody(req);
  const method = (req.method ?? 'GET').toUpperCase();
  const url = requestTarget(req.url);
  // Not a path ("*", garbage): no client of the services sends it; answered like a server would, not logged.
  if (!url) return write(res, errorReply(400, 'bad_request', 'the request target is not a path'));
  const { body, isJson } = parseBody(rawBody);

  if (url.pathname.startsWith('/__sandbox/')) {
    write(res, await deps.inspect(method, url, body));
    return;
  }

  const route = handler.route(method, url.pathname);
  const entry = deps.log.add({
    at,
    service: handler.kind,
    operation: route.operation,
    method,
    path: req.url ?? '/',
    headers: flatHeaders(req.headers),
    body,
    status: 0,
    ...(route.taskId !== undefined ? { taskId: route.taskId } : {}),
    ...(route.gateway !== undefined ? { gateway: route.gateway } : {}),
  });

  const fault = deps.faults.take({ operation: route.operation, rawBody, body, taskId: route.taskId });
  // A fault without commit answers before the service acts (nothing created); with commit the
  // service acts first and only the answer is lost or spoiled.
  const sreq: ServiceRequest = { method, url, headers: req.headers, rawBody, body, bodyIsJson: isJson, route };
  // A stream fails after bytes went out: the service has acted.
  const acts = !fault || fault.fault.type === 'streamError' || fault.fault.commit === true;
  const reply = acts ? await handleSafely(handler, sreq) : undefined;
  if (reply?.taskId !== undefined) entry.taskId = reply.taskId;
  if (reply?.quota !== undefined) entry.quota = reply.quota; // what the service did, even if a fault then answers
  await deps.scheduler.sleep(deps.latencyMs);

  const shaped = (r: Reply) => handler.shapeError?.(url.pathname, r) ?? r;
  if (!fault) return record(entry, res, shaped(reply as Reply));
  entry.fault = faultLabel(fault);
  const f = fault.fault;
  switch (f.type) {
    case 'status':
      return record(entry, res, shaped(statusFaultReply(f, reply?.taskId, body)));
    case 'hang':
      await deps.scheduler.sleep(f.ms);
      return record(
        entry,
        res,
        shaped(reply ?? errorReply(504, 'gateway_timeout', 'the service did not answer in time (sandbox hang fault)')),
      );
    case 'reset':
      res.destroy();
      req.socket.destroy();
      return;
    case 'malformed':
      return record(entry, res, malformedReply(fault, reply));
    case 'streamError': {
      const answered = shaped(reply as Reply);
      return record(entry, res, handler.failStream?.(url.pathname, answered, f) ?? answered);
    }
  }
}

/** A sandbox bug answers 500 and is logged like any answer, rather than leaving the entry unanswered. */
async function handleSafely(handler: ServiceHandler, req: ServiceRequest): Promise<Reply> {
  try {
    return await handler.handle(req);
  } catch (err) {
    return errorReply(500, 'internal_error', `sandbox error: ${err instanceof Error ? err.message : String(err)}`);
  }
}

function record(entry: RequestLogEntry, res: ServerResponse, reply: Reply): void {
  if (res.destroyed) entry.clientGone = true;
  entry.answeredAt = Date.now();
  entry.status = reply.status;
  if (reply.text === undefined && reply.json !== undefined) entry.response = reply.json;
  const retryAfter = reply.headers?.['retry-after'];
  if (retryAfter !== undefined) entry.retryAfter = retryAfter;
  write(res, reply);
}

function write(res: ServerResponse, reply: Reply): void {
  if (res.destroyed) return void reply.stream?.destroy();
  if (reply.stream) {
    const body = reply.stream;
    res.writeHead(reply.status, { 'content-type': reply.contentType ?? 'application/octet-stream', ...reply.headers });
    // A body that fails mid-way (a reset fault) drops the connection, as a real server would.
    body.once('error', () => res.destroy());
    res.once('close', () => body.destroy());
    body.pipe(res);
    return;
  }
  const isText = reply.text !== undefined;
  const payload = isText ? (reply.text as string) : JSON.stringify(reply.json ?? {});
  res.writeHead(reply.status, {
    'content-type': reply.contentType ?? (isText ? 'text/plain' : 'application/json'),
    'content-length': Buffer.byteLength(payload),
    ...reply.headers,
  });
  res.end(payload);
}

function readRequestBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function parseBody(raw: string): { body: unknown; isJson: boolean } {
  if (raw === '') return { body: undefined, isJson: false };
  try {
    return { body: JSON.parse(raw) as unknown, isJson: true };
  } catch {
    return { body: raw, isJson: false };
  }
}

function flatHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}
