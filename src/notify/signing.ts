// Standard Webhooks signatures (https://www.standardwebhooks.com): the worker signs each notification with
// every key of NOTIFY_SECRET (several during a rotation), and receivers check it with verifyNotification,
// or with any Standard Webhooks library. The signed content is `${webhook-id}.${webhook-timestamp}.${body}`,
// HMAC-SHA256 under the base64-decoded key of a `whsec_...` secret; the header is `v1,<base64>` per key,
// separated by spaces. The timestamp is checked against a tolerance (5 minutes), so a captured request
// cannot be replayed later, and receivers deduplicate by `webhook-id`.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { NotificationPayload } from '../model/notify.js';

/** `whsec_` secrets; a string is read as NOTIFY_SECRET is, comma-separated (newest first, all sign). */
export type NotifySecrets = string | readonly string[];

const PREFIX = 'whsec_';
/** Bytes of a key, as the spec recommends (24 to 64). */
export const NOTIFY_KEY_BYTES = { min: 24, max: 64 } as const;
/** How far a `webhook-timestamp` may be from now (seconds), either way. */
export const DEFAULT_TOLERANCE_SECONDS = 5 * 60;

/** The secrets as a list (a comma-separated string split), each `whsec_<base64>`. */
export function notifySecretList(secrets: NotifySecrets): string[] {
  const list = (typeof secrets === 'string' ? secrets.split(',') : [...secrets]).map((s) => s.trim());
  if (list.length === 0 || list.some((s) => s === '')) throw new TypeError('notification secrets must be non-empty');
  return list;
}

/** Why a secret is not a usable `whsec_` key (undefined: it is one). Never says the secret. */
export function notifySecretProblem(secret: string): string | undefined {
  if (!secret.startsWith(PREFIX)) return `must start with ${PREFIX} (the Standard Webhooks form)`;
  const b64 = secret.slice(PREFIX.length);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(b64) || b64.length % 4 !== 0) return `must be ${PREFIX} then base64`;
  const bytes = Buffer.from(b64, 'base64').length;
  if (bytes < NOTIFY_KEY_BYTES.min || bytes > NOTIFY_KEY_BYTES.max)
    return `must hold ${NOTIFY_KEY_BYTES.min} to ${NOTIFY_KEY_BYTES.max} bytes (it holds ${bytes})`;
  return undefined;
}

/** A fresh secret in the `whsec_` form (32 random bytes): what to put in NOTIFY_SECRET. */
export function newNotifySecret(): string {
  return `${PREFIX}${randomBytes(32).toString('base64')}`;
}

/** The HMAC key of a secret: the bytes its base64 stands for (the `whsec_` prefix is optional). */
function keyOf(secret: string): Buffer {
  return Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');
}

function signatureOf(key: Buffer, id: string, timestamp: string, body: string | Uint8Array): string {
  return createHmac('sha256', key).update(`${id}.${timestamp}.`).update(body).digest('base64');
}

export interface SignedHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/** The three Standard Webhooks headers of one attempt: one `v1,` signature per secret. */
export function signNotification(
  secrets: NotifySecrets,
  id: string,
  timestampSeconds: number,
  body: string | Uint8Array,
): SignedHeaders {
  const timestamp = String(Math.floor(timestampSeconds));
  const signatures = notifySecretList(secrets).map((s) => `v1,${signatureOf(keyOf(s), id, timestamp, body)}`);
  return { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': signatures.join(' ') };
}

export type NotificationVerificationReason =
  'missing headers' | 'bad timestamp' | 'timestamp too old' | 'timestamp too new' | 'bad signature' | 'bad body';

/** A notification that is not ours, or not any more: answer it 400 and do not act on it. */
export class NotificationVerificationError extends Error {
  override name = 'NotificationVerificationError';
  constructor(readonly reason: NotificationVerificationReason) {
    super(`notification refused: ${reason}`);
  }
}

type HeaderBag = Headers | Record<string, string | string[] | undefined>;

function header(headers: HeaderBag, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const bag = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(bag).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : bag[key];
  return Array.isArray(value) ? value[0] : value;
}

export interface VerifyOptions {
  /** Seconds a timestamp may be off either way (default 300). */
  toleranceSeconds?: number;
  /** Now, ms since the epoch (default Date.now()). */
  nowMs?: number;
}

/**
 * Checks a notification as received: the raw body (the exact bytes, before any JSON parsing), the
 * request's headers (a Fetch `Headers` or Node's `req.headers`), and the secrets (NOTIFY_SECRET's form:
 * one or several `whsec_` keys; any one of them may have signed). Returns the parsed payload; throws
 * NotificationVerificationError when a header is missing, the timestamp is outside the tolerance, or no
 * signature matches. Deduplicate what it returns by `webhook-id` (retries resend the same id).
 */
export function verifyNotification(
  headers: HeaderBag,
  body: string | Uint8Array,
  secrets: NotifySecrets,
  options: VerifyOptions = {},
): NotificationPayload {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signature = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signature) throw new NotificationVerificationError('missing headers');
  if (!/^\d{1,12}$/.test(timestamp)) throw new NotificationVerificationError('bad timestamp');
  const skew = Number(timestamp) - (options.nowMs ?? Date.now()) / 1000;
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (skew < -tolerance) throw new NotificationVerificationError('timestamp too old');
  if (skew > tolerance) throw new NotificationVerificationError('timestamp too new');
  const given = signature
    .split(' ')
    .filter((s) => s.startsWith('v1,'))
    .map((s) => Buffer.from(s.slice(3)));
  const genuine = notifySecretList(secrets).some((secret) => {
    const expected = Buffer.from(signatureOf(keyOf(secret), id, timestamp, body));
    return given.some((g) => g.length === expected.length && timingSafeEqual(g, expected));
  });
  if (!genuine) throw new NotificationVerificationError('bad signature');
  try {
    return JSON.parse(typeof body === 'string' ? body : Buffer.from(body).toString('utf8')) as NotificationPayload;
  } catch {
    throw new NotificationVerificationError('bad body');
  }
}
