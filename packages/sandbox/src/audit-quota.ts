// Audit rule for the sandbox's quotas: a create or submit refused 429 for a quota (`quota` in the log)
// with a Retry-After, sent again (the same method, path and body: the same request retried) before that
// Retry-After allowed it. Only quota refusals count: an injected 429 fault is the fault tests' business.
import { notBeforeOf } from './retry-after-at.js';
import type { RequestLogEntry, Violation } from './types.js';

export const QUOTA_RETRY_AFTER_RULE = 'quota.retry-after';

function isCreate(e: RequestLogEntry): boolean {
  return (
    e.operation === 'video.create' ||
    e.operation === 'review.submitAsync' ||
    e.operation === 'review.submitSync' ||
    e.gateway === 'create'
  );
}

export function quotaRetryAfterViolations(entries: RequestLogEntry[]): Violation[] {
  const out: Violation[] = [];
  /** Request (service, method, path, body) -> earliest retry allowed, and the refusal that said so. */
  const notBefore = new Map<string, { at: number; seq: number }>();
  for (const e of [...entries].sort((a, b) => a.seq - b.seq)) {
    if (!isCreate(e)) continue;
    const key = `${e.service} ${e.method} ${e.path.split('?')[0] ?? ''} ${JSON.stringify(e.body) ?? ''}`;
    const wait = notBefore.get(key);
    if (wait !== undefined && e.at < wait.at) {
      out.push({
        rule: QUOTA_RETRY_AFTER_RULE,
        seq: e.seq,
        detail: `${e.operation === 'other' ? 'create' : e.operation} sent again ${wait.at - e.at} ms before the Retry-After of its quota 429 (seq ${wait.seq}) allowed it`,
      });
    }
    // An answer the client never saw tells it nothing.
    if (e.clientGone === true) continue;
    if (e.quota !== undefined && e.retryAfter !== undefined) {
      notBefore.set(key, { at: notBeforeOf(e, e.retryAfter), seq: e.seq });
    } else notBefore.delete(key);
  }
  return out;
}
