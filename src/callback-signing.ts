// Callback URLs are unguessable, bound to one run and expiring: each carries an HMAC under CALLBACK_SECRET
// of (kind, workflow id, run id, expiry, and whether the run polls), after the conventions of Standard
// Webhooks and Stripe (a
// signed timestamp, several keys during a rotation). The services do not sign their callbacks (spec: not
// shown), so the URL itself is the credential: it never enters history, logs or errors (the transport
// redacts it from whatever a service echoes, services/http.ts).
import { createHmac, timingSafeEqual } from 'node:crypto';

export type CallbackKind = 'review' | 'video';

/** Whom a callback URL is for, and until when (unix seconds) it is accepted. */
export interface CallbackTarget {
  kind: CallbackKind;
  workflowId: string;
  runId: string;
  expiresAt: number;
  /**
   * The run polls this task rather than waiting for callbacks (a job with `callbacks: false`): the receiver
   * then drops what the poll will see anyway (src/callbacks/forwarding.ts). Signed like the rest.
   */
  polls?: boolean;
}

/**
 * Signing keys, newest first: the first signs, every one verifies (a rotation adds the new key second,
 * then first, then drops the old one once the URLs it signed have expired: docs/operations.md). A string
 * is read as CALLBACK_SECRET is, comma-separated, so `process.env.CALLBACK_SECRET` passed as it is means
 * the same keys to a worker and a receiver however each was configured.
 */
export type CallbackSecrets = string | readonly string[];

export function callbackKeys(secrets: CallbackSecrets): readonly string[] {
  const keys = typeof secrets === 'string' ? secrets.split(',').map((k) => k.trim()) : secrets;
  if (keys.length === 0 || keys.some((k) => k === '')) throw new TypeError('callback secrets must be non-empty');
  return keys;
}

/** How long after its stage's deadline a callback URL is still accepted: late callbacks of a slow service. */
export const CALLBACK_EXPIRY_MARGIN_MS = 30 * 60_000;

/** The expiry (unix seconds) of a URL for a stage that ends at `stageDeadlineMs` (ms epoch). */
export function callbackExpiry(stageDeadlineMs: number): number {
  return Math.ceil((stageDeadlineMs + CALLBACK_EXPIRY_MARGIN_MS) / 1000);
}

export function callbackSignature(secret: string, t: CallbackTarget): string {
  return createHmac('sha256', secret)
    .update(`v2\n${t.kind}\n${t.workflowId}\n${t.runId}\n${t.expiresAt}${t.polls ? '\npolls' : ''}`)
    .digest('base64url');
}

/** `{publicUrl}/callbacks/{kind}/{workflowId}?run=...&exp=...&sig=...`, signed with the first key. */
export function buildCallbackUrl(publicUrl: string, secrets: CallbackSecrets, t: CallbackTarget): string {
  const base = publicUrl.replace(/\/+$/, '');
  const sig = callbackSignature(callbackKeys(secrets)[0]!, t);
  const query = new URLSearchParams({
    run: t.runId,
    exp: String(t.expiresAt),
    ...(t.polls ? { mode: 'poll' } : {}),
    sig,
  });
  return `${base}/callbacks/${t.kind}/${encodeURIComponent(t.workflowId)}?${query.toString()}`;
}

export type CallbackVerdict =
  { ok: true; runId: string; expiresAt: number; polls: boolean } | { ok: false; reason: 'bad signature' | 'expired' };

/**
 * Checks the `run`, `exp` and `sig` query parameters of a callback request against every key (constant
 * time), then the expiry: an expired URL is refused only once its signature proved it genuine, so a
 * forger learns nothing. A URL of the 0.2.0 form (no run, no expiry) is a bad signature.
 */
export function verifyCallbackUrl(
  secrets: CallbackSecrets,
  kind: CallbackKind,
  workflowId: string,
  query: URLSearchParams,
  nowMs = Date.now(),
): CallbackVerdict {
  const runId = query.get('run') ?? '';
  const exp = query.get('exp') ?? '';
  const given = Buffer.from(query.get('sig') ?? '');
  if (runId === '' || !/^\d{1,12}$/.test(exp)) return { ok: false, reason: 'bad signature' };
  const polls = query.get('mode') === 'poll';
  const target: CallbackTarget = { kind, workflowId, runId, expiresAt: Number(exp), polls };
  const genuine = callbackKeys(secrets).some((key) => {
    const expected = Buffer.from(callbackSignature(key, target));
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!genuine) return { ok: false, reason: 'bad signature' };
  if (target.expiresAt * 1000 <= nowMs) return { ok: false, reason: 'expired' };
  return { ok: true, runId, expiresAt: target.expiresAt, polls };
}

/** The values of a signed callback URL that must never be shown: the URL itself and its signature. */
export function callbackUrlSecrets(url: string | undefined): string[] {
  if (!url) return [];
  let sig: string | null = null;
  try {
    sig = new URL(url).searchParams.get('sig');
  } catch {
    // Not a URL: the whole text is still blanked out.
  }
  return sig ? [url, sig] : [url];
}

/** A callback URL as this module writes it: our path, then a signature (43 base64url characters). */
const SIGNED_CALLBACK_URL = /\/callbacks\/(?:review|video)\/[^\s"?]+\?(?:[^\s"]*&)?sig=[A-Za-z0-9_-]{43}/;

/** Whether a text (a history, a log line) holds a signed callback URL: what the secret scans look for. */
export function containsSignedCallbackUrl(text: string): boolean {
  return SIGNED_CALLBACK_URL.test(text);
}
