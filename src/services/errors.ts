// The two error types every client call can throw. Pure (no node: imports): workflow code imports these
// types too. Messages are built from status codes and operation names only, never from request headers,
// so a key or token cannot leak through them.

export type ServiceName = 'video' | 'review';
export type ServiceErrorKind = 'http' | 'timeout' | 'network' | 'malformed-response';

export interface ServiceErrorInit {
  service: ServiceName;
  operation: string;
  kind: ServiceErrorKind;
  status?: number | undefined;
  ambiguous: boolean;
  retryable: boolean;
  retryAfterMs?: number | undefined;
  responseBody?: unknown;
  message: string;
  cause?: unknown;
}

export class ServiceError extends Error {
  override readonly name = 'ServiceError';
  readonly service: ServiceName;
  /** e.g. 'video.create', 'review.query'. */
  readonly operation: string;
  readonly kind: ServiceErrorKind;
  readonly status: number | undefined;
  /** The request may have reached the server and taken effect (500/502/504, time-out or reset after send, 2xx with an unusable body). */
  readonly ambiguous: boolean;
  /** A retry may help (false for 400, 401, 403, 404, 409, 422). */
  readonly retryable: boolean;
  /** Parsed Retry-After (delta-seconds or HTTP-date), clamped to >= 0. */
  readonly retryAfterMs: number | undefined;
  /** Parsed JSON or a truncated text excerpt of the response, with known secrets redacted; never request headers. */
  readonly responseBody: unknown;

  constructor(init: ServiceErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.service = init.service;
    this.operation = init.operation;
    this.kind = init.kind;
    this.status = init.status;
    this.ambiguous = init.ambiguous;
    this.retryable = init.retryable;
    this.retryAfterMs = init.retryAfterMs;
    this.responseBody = init.responseBody;
  }
}
