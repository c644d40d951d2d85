// One undici connection pool per service. Every call: a single deadline that covers connecting, the
// headers and the whole body; the body is always read to the end or destroyed; every failure becomes a
// ServiceError that says whether the request may have taken effect. Nothing here puts a header value
// into an error, and whatever a service echoes of a secret (the client's key, or a request's signed
// `callback_url`) is blanked out of every body read, error or not, before anyone sees it.
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { Pool, type FormData } from 'undici';
import { SERVICE_DEFAULTS } from '../config/services.js';
import { httpStatusError, malformedResponseError, type CallContext } from './classify.js';
import { excerpt, MAX_BODY_BYTES, MAX_ERROR_BODY_BYTES, parseJson, readResponseBody } from './http-body.js';
import { asServiceError, DeadlineExceeded, isTimeout } from './http-failures.js';
import { ServiceError, type ServiceName } from './errors.js';
import { redact } from './redact.js';
import { callbackUrlSecrets } from '../callback-signing.js';
import { retryAfterFromHeaders } from './retry-after.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface ServiceHttpOptions {
  service: ServiceName;
  /** Origin plus an optional path prefix, e.g. `https://gw.example.com/proxy`. */
  baseUrl: string;
  /** Deadline of one call, from sending to the end of the response body. */
  timeoutMs: number;
  /** Values to blank out of anything read from the service (the key or token of this client). */
  secrets: readonly string[];
  /** Most sockets kept open to the service (default SERVICE_DEFAULTS.connections). */
  connections?: number;
  /** Told once per call when it ends (metrics); also every observer given to observeServiceRequests. */
  onRequest?: RequestObserver;
}

/** What an observer learns of one call: no URL, header or body, only bounded names. */
export interface RequestInfo {
  service: ServiceName;
  /** The client's operation name, e.g. `video.create`: a fixed set. */
  operation: string;
  method: HttpMethod;
  /** The HTTP status, when a response arrived. */
  status: number | undefined;
  /** `response` (any status), `timeout`, `network` (no response), `malformed` (a 2xx body that isn't JSON). */
  outcome: 'response' | 'timeout' | 'network' | 'malformed';
  durationMs: number;
}

export type RequestObserver = (info: RequestInfo) => void;

const processObservers = new Set<RequestObserver>();

/** Observes every call of every client in this process (the worker's metrics); returns the unsubscribe. */
export function observeServiceRequests(observer: RequestObserver): () => void {
  processObservers.add(observer);
  return () => processObservers.delete(observer);
}

export interface HttpRequest {
  operation: string;
  method: HttpMethod;
  /** Path below the base URL, starting with `/`, path parameters already encoded. */
  path: string;
  headers: Record<string, string>;
  /** Sent as JSON when present; a FormData is sent as multipart/form-data (undici writes the boundary). */
  body?: unknown;
  /** Deadline of this call instead of the client's (e.g. a call that blocks until work is done). */
  timeoutMs?: number;
  /** The caller gave up (an activity attempt cancelled or timed out): the request must not outlive it. */
  signal?: AbortSignal;
}

export interface HttpResponse {
  status: number;
  headers: IncomingHttpHeaders;
  /** Parsed JSON; undefined for an empty body. */
  body: unknown;
}

/** The test undici itself applies, so a FormData from undici or from Node's globals both qualify. */
export function isFormData(value: unknown): value is FormData {
  const v = value as { append?: unknown; getAll?: unknown; [Symbol.toStringTag]?: unknown } | null | undefined;
  return typeof v?.append === 'function' && typeof v.getAll === 'function' && v[Symbol.toStringTag] === 'FormData';
}

/**
 * What this request itself carries that must never come back: the spec's `callback_url` (both services
 * take one) holds our signature, and a service may echo it (the async review answer does, and so can a
 * 400 that quotes the request).
 */
function requestSecrets(body: unknown): string[] {
  const url = body && typeof body === 'object' ? (body as { callback_url?: unknown }).callback_url : undefined;
  return typeof url === 'string' ? callbackUrlSecrets(url) : [];
}

export interface HttpDownload {
  status: number;
  headers: IncomingHttpHeaders;
  body: Readable;
}

export class ServiceHttp {
  readonly service: ServiceName;
  private readonly pool: Pool;
  private readonly basePath: string;
  private readonly timeoutMs: number;
  private readonly secrets: readonly string[];
  private readonly onRequest: RequestObserver | undefined;

  constructor(options: ServiceHttpOptions) {
    const url = new URL(options.baseUrl);
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new TypeError(`${options.service} baseUrl must be an http(s) URL`);
    if (!Number.isFinite(options.timeoutMs) || options.timeoutMs <= 0)
      throw new TypeError(`${options.service} timeoutMs must be a positive number`);
    if (options.connections !== undefined && (!Number.isInteger(options.connections) || options.connections < 1)) {
      throw new TypeError(`${options.service} connections must be a positive integer`);
    }
    this.service = options.service;
    this.basePath = url.pathname.replace(/\/+$/, '');
    this.timeoutMs = options.timeoutMs;
    this.secrets = options.secrets;
    this.onRequest = options.onRequest;
    // undici's own timers are a backstop; the per-call deadline below normally fires first.
    this.pool = new Pool(url.origin, {
      connections: options.connections ?? SERVICE_DEFAULTS.connections,
      connect: { timeout: Math.min(options.timeoutMs, 10_000) },
      headersTimeout: options.timeoutMs + 1_000,
      bodyTimeout: options.timeoutMs + 1_000,
    });
  }

  /** Resolves for a 2xx with a JSON (or empty) body; throws ServiceError for everything else. */
  async send(req: HttpRequest): Promise<HttpResponse> {
    const ctx: CallContext = { service: this.service, operation: req.operation };
    const timeoutMs = req.timeoutMs ?? this.timeoutMs;
    if (!Number.isFinite(timeoutMs) || timeoutMs <= 0)
      throw new TypeError(`${req.operation} timeoutMs must be a positive number`);
    const controller = new AbortController();
    const deadline = setTimeout(() => controller.abort(new DeadlineExceeded()), timeoutMs);
    const giveUp = () => controller.abort(req.signal?.reason);
    if (req.signal?.aborted) giveUp();
    req.signal?.addEventListener('abort', giveUp, { once: true });
    const started = performance.now();
    let status: number | undefined;
    let outcome: RequestInfo['outcome'] = 'network';
    const secrets = [...this.secrets, ...requestSecrets(req.body)];
    try {
      const hasBody = req.body !== undefined;
      const form = isFormData(req.body) ? req.body : undefined;
      const res = await this.pool.request({
        method: req.method,
        path: this.basePath + req.path,
        headers: {
          accept: 'application/json',
          ...(hasBody && !form ? { 'content-type': 'application/json' } : {}),
          ...req.headers,
        },
        body: form ?? (hasBody ? JSON.stringify(req.body) : null),
        signal: controller.signal,
        // The pool's backstop timers follow this call's deadline, so a longer one is not cut short.
        headersTimeout: timeoutMs + 1_000,
        bodyTimeout: timeoutMs + 1_000,
      });
      status = res.statusCode;
      outcome = 'response';
      const ok = res.statusCode >= 200 && res.statusCode < 300;
      if (!ok) {
        // The status decides; an unreadable error body must not hide it.
        const read = await readResponseBody(res.body, MAX_ERROR_BODY_BYTES).catch(() => undefined);
        const body = excerpt(read?.text, secrets);
        throw httpStatusError(ctx, res.statusCode, body, retryAfterFromHeaders(res.headers));
      }
      const read = await readResponseBody(res.body, MAX_BODY_BYTES);
      const text = redact(read.text, secrets);
      const parsed = read.complete ? parseJson(text) : { ok: false as const };
      if (!parsed.ok) {
        outcome = 'malformed';
        const eventStream = /^text\/event-stream\b/i.test(String(res.headers['content-type'] ?? ''));
        const problem = !read.complete
          ? `a body larger than ${MAX_BODY_BYTES} bytes`
          : eventStream
            ? 'a server-sent event stream, not JSON'
            : 'a body that is not JSON';
        throw malformedResponseError(ctx, res.statusCode, excerpt(read.text, secrets), problem);
      }
      return { status: res.statusCode, headers: res.headers, body: parsed.value };
    } catch (err) {
      if (!(err instanceof ServiceError) && isTimeout(err, controller)) outcome = 'timeout';
      throw asServiceError(err, ctx, timeoutMs, controller);
    } finally {
      clearTimeout(deadline);
      req.signal?.removeEventListener('abort', giveUp);
      this.report({ ...ctx, method: req.method, status, outcome, durationMs: performance.now() - started });
    }
  }

  /**
   * A GET whose 2xx body is a file (a video download): the body is returned as a stream for the caller
   * to read to its end or destroy. The deadline covers the connection and the headers; the body then
   * has undici's body time-out between chunks. Any other status throws as `send` does.
   */
  async download(req: Omit<HttpRequest, 'method' | 'body'>): Promise<HttpDownload> {
    const ctx: CallContext = { service: this.service, operation: req.operation };
    const timeoutMs = req.timeoutMs ?? this.timeoutMs;
    const controller = new AbortController();
    const deadline = setTimeout(() => controller.abort(new DeadlineExceeded()), timeoutMs);
    const started = performance.now();
    let status: number | undefined;
    let outcome: RequestInfo['outcome'] = 'network';
    try {
      const res = await this.pool.request({
        method: 'GET',
        path: this.basePath + req.path,
        headers: { accept: '*/*', ...req.headers },
        signal: controller.signal,
        headersTimeout: timeoutMs + 1_000,
        bodyTimeout: Math.max(timeoutMs, 60_000),
      });
      status = res.statusCode;
      outcome = 'response';
      if (res.statusCode < 200 || res.statusCode >= 300) {
        const read = await readResponseBody(res.body, MAX_ERROR_BODY_BYTES).catch(() => undefined);
        throw httpStatusError(
          ctx,
          res.statusCode,
          excerpt(read?.text, this.secrets),
          retryAfterFromHeaders(res.headers),
        );
      }
      // From here the body is the caller's: the deadline must not abort it mid-copy.
      clearTimeout(deadline);
      return { status: res.statusCode, headers: res.headers, body: res.body };
    } catch (err) {
      if (!(err instanceof ServiceError) && isTimeout(err, controller)) outcome = 'timeout';
      throw asServiceError(err, ctx, timeoutMs, controller);
    } finally {
      clearTimeout(deadline);
      this.report({ ...ctx, method: 'GET', status, outcome, durationMs: performance.now() - started });
    }
  }

  /** An observer's failure never fails the call. */
  private report(info: RequestInfo): void {
    for (const observe of [this.onRequest, ...processObservers]) {
      try {
        observe?.(info);
      } catch {
        // Metrics are best effort.
      }
    }
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}
