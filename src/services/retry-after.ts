// Retry-After (RFC 9110 §10.2.3): delta-seconds or an HTTP-date, as milliseconds from now, never negative.

export function parseRetryAfter(value: string | string[] | undefined, nowMs: number = Date.now()): number | undefined {
  const v = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!v) return undefined;
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  // Only date-looking values: Date.parse would also read bare numbers with signs or decimals as dates.
  if (!/[a-z]/i.test(v)) return undefined;
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}

/**
 * The wait a response's headers ask for: OpenAI's `retry-after-ms` (milliseconds, read first as its own
 * SDK does), else the standard `Retry-After`.
 */
export function retryAfterFromHeaders(
  headers: Record<string, string | string[] | undefined>,
  nowMs: number = Date.now(),
): number | undefined {
  const raw = headers['retry-after-ms'];
  const ms = (Array.isArray(raw) ? raw[0] : raw)?.trim();
  if (ms && /^\d+(?:\.\d+)?$/.test(ms)) return Math.round(Number(ms));
  return parseRetryAfter(headers['retry-after'], nowMs);
}
