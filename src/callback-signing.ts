// Callback URLs are unguessable: each carries an HMAC of (kind, workflow id) under CALLBACK_SECRET.
// The services do not sign their callbacks (spec: not shown), so the URL itself is the credential.
import { createHmac, timingSafeEqual } from 'node:crypto';

export type CallbackKind = 'review' | 'video';

export function callbackSignature(secret: string, kind: CallbackKind, workflowId: string): string {
  return createHmac('sha256', secret).update(`${kind}\n${workflowId}`).digest('base64url');
}

/** `{publicUrl}/callbacks/{kind}/{workflowId}?sig=...` */
export function buildCallbackUrl(publicUrl: string, secret: string, kind: CallbackKind, workflowId: string): string {
  const base = publicUrl.replace(/\/+$/, '');
  const sig = callbackSignature(secret, kind, workflowId);
  return `${base}/callbacks/${kind}/${encodeURIComponent(workflowId)}?sig=${sig}`;
}

/** Constant-time check; false for any malformed signature. */
export function verifyCallbackSignature(secret: string, kind: CallbackKind, workflowId: string, sig: string): boolean {
  const expected = Buffer.from(callbackSignature(secret, kind, workflowId));
  const given = Buffer.from(sig);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
