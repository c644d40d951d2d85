// How each failure of a call is reported: what happened, whether the request may have taken effect
// (ambiguous) and whether a retry can help. The spec only fixes 400/401 (fix the request or token) and
// 500/time-out (may have reached the server); the rest follows HTTP semantics.
import { ServiceError, type ServiceName } from './errors.js';
import { bodyRetryDelayMs, providerErrorType } from './provider-errors.js';

export interface CallContext {
  service: ServiceName;
  operation: string;
}

const AMBIGUOUS = 'ambiguous: the request may have reached the server; look for its result before resubmitting';

interface StatusClass {
  ambiguous: boolean;
  retryable: boolean;
  advice: string;
}

export function classifyStatus(status: number): StatusClass {
  if (status === 400 || status === 422)
    return { ambiguous: false, retryable: false, advice: 'final: fix the request, do not retry' };
  if (status === 401 || status === 403)
    return { ambiguous: false, retryable: false, advice: 'final: check the credentials, do not retry' };
  if (status === 404) return { ambiguous: false, retryable: false, advice: 'final: no such resource' };
  if (status === 409) return { ambiguous: false, retryable: false, advice: 'final: conflicts with the current state' };
  if (status === 429)
    return { ambiguous: false, retryable: true, advice: 'retryable: rate limited, the request was not processed' };
  if (status === 503)
    return {
      ambiguous: false,
      retryable: true,
      advice: 'retryable: service unavailable, the request was not processed',
    };
  if (status >= 500) return { ambiguous: true, retryable: true, advice: AMBIGUOUS };
  return { ambiguous: false, retryable: false, advice: 'final: unexpected response, do not retry' };
}

/** A short human-readable reason from an error body, if it has one. */
function serverMessage(body: unknown): string | undefined {
  let m: unknown = body;
  if (typeof body === 'object' && body !== null) {
    const b = body as Record<string, unknown>;
    const e = b.error;
    m = b.message ?? b.msg ?? (typeof e === 'object' && e !== null ? (e as Record<string, unknown>).message : e);
  }
  if (typeof m !== 'string' || m.trim() === '') return undefined;
  const oneLine = m.replace(/\s+/g, ' ').trim();
  return oneLine.length > 200 ? `${oneLine.slice(0, 200)}…` : oneLine;
}

/**
 * The status's class, corrected by the error's own type where the body names one the API families
 * document: a billing stop, a content-policy refusal or an invalid request is final whatever its status
 * (OpenAI answers a billing stop with 429); a rate limit or an overload was not processed and is retried.
 */
function classifyError(status: number, body: unknown): StatusClass {
  const byStatus = classifyStatus(status);
  const t = providerErrorType(body);
  if (!t || status < 400) return byStatus;
  switch (t.category) {
    case 'billing':
      return { ambiguous: false, retryable: false, advice: `final: a billing or quota stop (${t.type}), do not retry` };
    case 'content_policy':
      return {
        ambiguous: false,
        retryable: false,
        advice: `final: refused by content policy (${t.type}), do not retry`,
      };
    case 'invalid_request':
      // 401/403/404... keep their own advice; only a status that would be retried is corrected.
      return byStatus.retryable
        ? { ambiguous: false, retryable: false, advice: `final: an invalid request (${t.type}), do not retry` }
        : byStatus;
    case 'rate_limit':
    case 'overloaded':
      return {
        ambiguous: false,
        retryable: true,
        advice: `retryable: ${t.category === 'rate_limit' ? 'rate limited' : 'overloaded'} (${t.type}), the request was not processed`,
      };
  }
}

export function httpStatusError(
  ctx: CallContext,
  status: number,
  responseBody: unknown,
  retryAfterMs: number | undefined,
  /** How the status was received, when not as the HTTP status itself (e.g. a result code in a 200 body). */
  seen: string = `HTTP ${status}`,
): ServiceError {
  const c = classifyError(status, responseBody);
  // A header's wait first; else the one the body carries (Gemini's google.rpc.RetryInfo).
  const bodyDelayMs = c.retryable && retryAfterMs === undefined ? bodyRetryDelayMs(responseBody) : undefined;
  const delayMs = retryAfterMs ?? bodyDelayMs;
  const wait =
    retryAfterMs !== undefined
      ? `; Retry-After ${retryAfterMs} ms`
      : bodyDelayMs !== undefined
        ? `; retryDelay ${bodyDelayMs} ms (in the body)`
        : '';
  const said = serverMessage(responseBody);
  return new ServiceError({
    ...ctx,
    kind: 'http',
    status,
    ambiguous: c.ambiguous,
    retryable: c.retryable,
    retryAfterMs: delayMs,
    responseBody,
    message: `${ctx.operation} failed: ${seen} (${c.advice}${wait})${said ? `: ${said}` : ''}`,
  });
}

/** The deadline passed. Before a connection existed nothing was sent; afterwards it may have arrived. */
export function timeoutError(ctx: CallContext, timeoutMs: number, connecting: boolean, cause: unknown): ServiceError {
  return new ServiceError({
    ...ctx,
    kind: 'timeout',
    ambiguous: !connecting,
    retryable: true,
    cause,
    message: connecting
      ? `${ctx.operation} failed: could not connect within the time-out (retryable: the request was not sent)`
      : `${ctx.operation} failed: no complete response within ${timeoutMs} ms (${AMBIGUOUS})`,
  });
}

// Failures that happen before any byte of the request can have left the process.
const NOT_SENT = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'EAI_NONAME',
]);
const NOT_SENT_FINAL = new Set(['UND_ERR_CLOSED', 'UND_ERR_DESTROYED', 'UND_ERR_INVALID_ARG', 'ERR_INVALID_URL']);

export function networkError(ctx: CallContext, code: string | undefined, cause: unknown): ServiceError {
  const shown = code ?? 'unknown error';
  const tls = code !== undefined && (code.startsWith('ERR_TLS_') || code.includes('CERT'));
  if (NOT_SENT.has(shown) || tls || NOT_SENT_FINAL.has(shown)) {
    const retryable = NOT_SENT.has(shown);
    return new ServiceError({
      ...ctx,
      kind: 'network',
      ambiguous: false,
      retryable,
      cause,
      message: `${ctx.operation} failed: ${shown} before the request was sent (${retryable ? 'retryable' : 'final: check the configuration'})`,
    });
  }
  return new ServiceError({
    ...ctx,
    kind: 'network',
    ambiguous: true,
    retryable: true,
    cause,
    message: `${ctx.operation} failed: connection lost (${shown}) after the request was sent (${AMBIGUOUS})`,
  });
}

/** A 2xx whose body cannot be used: the operation may well have taken effect. */
export function malformedResponseError(
  ctx: CallContext,
  status: number,
  responseBody: unknown,
  problem: string,
): ServiceError {
  return new ServiceError({
    ...ctx,
    kind: 'malformed-response',
    status,
    ambiguous: true,
    retryable: true,
    responseBody,
    message: `${ctx.operation} failed: HTTP ${status} with ${problem} (${AMBIGUOUS})`,
  });
}

/**
 * A 2xx whose body could not be read (not JSON, too large, an event stream): the service answered, so the
 * call was processed and billed. Retrying it would pay for it again, so it is final here, unlike a 500
 * or a time-out, which may not have reached the provider.
 */
export function answeredUnreadable(err: unknown): ServiceError | undefined {
  if (!(err instanceof ServiceError) || err.kind !== 'malformed-response') return undefined;
  return new ServiceError({
    service: err.service,
    operation: err.operation,
    kind: err.kind,
    status: err.status,
    ambiguous: false,
    retryable: false,
    responseBody: err.responseBody,
    message: `${err.operation} failed: HTTP ${err.status ?? '2xx'} with a body that could not be read; the call was answered (and may be billed), so it is not sent again`,
    cause: err,
  });
}
