// When a Retry-After lets the client call again, read from the request log (the audit's rules use it).
import type { RequestLogEntry } from './types.js';

/** The earliest next call a Retry-After allows: it counts from the answer (a sync one comes long after `at`). */
export function notBeforeOf(e: RequestLogEntry, retryAfter: string): number {
  const answered = e.answeredAt ?? e.at;
  return answered + retryAfterMs(retryAfter, answered);
}

/** Delta-seconds or an HTTP-date, as a wait in ms from `at`. */
export function retryAfterMs(value: string, at: number): number {
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const date = Date.parse(v);
  return Number.isNaN(date) ? 0 : Math.max(0, date - at);
}
