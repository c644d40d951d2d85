// What a request that got no usable response threw (undici's errors, our own deadline), as a ServiceError
// that says whether the request may have taken effect.
import { networkError, timeoutError, type CallContext } from './classify.js';
import { ServiceError } from './errors.js';

/** The abort reason of a call's own deadline. */
export class DeadlineExceeded extends Error {}

function errorCode(err: unknown): string | undefined {
  const e = err as { code?: unknown; cause?: { code?: unknown }; errors?: Array<{ code?: unknown }> } | undefined;
  const code = e?.code ?? e?.cause?.code ?? e?.errors?.[0]?.code;
  return typeof code === 'string' ? code : undefined;
}

export function isTimeout(err: unknown, controller: AbortController): boolean {
  const code = errorCode(err);
  return (
    controller.signal.aborted ||
    code === 'UND_ERR_CONNECT_TIMEOUT' ||
    code === 'UND_ERR_HEADERS_TIMEOUT' ||
    code === 'UND_ERR_BODY_TIMEOUT'
  );
}

/** What a failed request threw, as a ServiceError that says whether it may have taken effect. */
export function asServiceError(
  err: unknown,
  ctx: CallContext,
  timeoutMs: number,
  controller: AbortController,
): ServiceError {
  if (err instanceof ServiceError) return err;
  const code = errorCode(err);
  if (isTimeout(err, controller)) {
    const beforeSending = !controller.signal.aborted && code === 'UND_ERR_CONNECT_TIMEOUT';
    return timeoutError(ctx, timeoutMs, beforeSending, err);
  }
  return networkError(ctx, code, err);
}
