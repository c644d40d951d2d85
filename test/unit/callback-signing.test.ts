// Callback URLs: bound to one run and an expiry, signed by the first key, verified by every key
// (src/callback-signing.ts), and CALLBACK_SECRET read as a list of keys (src/config/callbacks.ts).
import { describe, expect, it } from 'vitest';
import {
  buildCallbackUrl,
  callbackExpiry,
  callbackUrlSecrets,
  containsSignedCallbackUrl,
  verifyCallbackUrl,
  type CallbackTarget,
} from '../../src/callback-signing.js';
import { loadCallbackConfig } from '../../src/config/callbacks.js';
import { ConfigError } from '../../src/config/env.js';

const A = 'key-a-0123456789abcdef';
const B = 'key-b-0123456789abcdef';
const NOW = Date.UTC(2026, 10, 25, 12);
const target: CallbackTarget = {
  kind: 'video',
  workflowId: 'order-1234-video',
  runId: 'run-1',
  expiresAt: callbackExpiry(NOW + 60_000),
};

const queryOf = (url: string) => new URL(url).searchParams;
const verify = (secrets: string | string[], url: string, t = target, now = NOW) =>
  verifyCallbackUrl(secrets, t.kind, t.workflowId, queryOf(url), now);

describe('callback URLs', () => {
  it('carry the run and the expiry, and verify for that kind, workflow and run only', () => {
    const url = buildCallbackUrl('https://cb.example.com/', A, target);
    expect(url).toMatch(/^https:\/\/cb\.example\.com\/callbacks\/video\/order-1234-video\?run=run-1&exp=\d+&sig=/);
    expect(verify(A, url)).toEqual({ ok: true, runId: 'run-1', expiresAt: target.expiresAt, polls: false });
    expect(verify(A, url, { ...target, kind: 'review' })).toEqual({ ok: false, reason: 'bad signature' });
    expect(verify(A, url, { ...target, workflowId: 'order-9' })).toEqual({ ok: false, reason: 'bad signature' });
    expect(verify(A, url.replace('run=run-1', 'run=run-2'))).toEqual({ ok: false, reason: 'bad signature' });
    expect(verify(B, url)).toEqual({ ok: false, reason: 'bad signature' });
  });

  it('say, signed, that the run polls its task: the flag cannot be added or removed', () => {
    const polled = buildCallbackUrl('https://cb.example.com', A, { ...target, polls: true });
    expect(polled).toContain('&mode=poll&');
    expect(verify(A, polled)).toMatchObject({ ok: true, polls: true });
    expect(verify(A, polled.replace('&mode=poll', ''))).toEqual({ ok: false, reason: 'bad signature' });
    const plain = buildCallbackUrl('https://cb.example.com', A, target);
    expect(verify(A, plain.replace('&sig=', '&mode=poll&sig='))).toEqual({ ok: false, reason: 'bad signature' });
  });

  it('expire a margin after the stage deadline; a pushed-back expiry is a bad signature', () => {
    const url = buildCallbackUrl('https://cb.example.com', A, target);
    const expiresMs = target.expiresAt * 1000;
    expect(expiresMs - (NOW + 60_000)).toBeGreaterThanOrEqual(30 * 60_000);
    expect(verify(A, url, target, expiresMs - 1).ok).toBe(true);
    expect(verify(A, url, target, expiresMs)).toEqual({ ok: false, reason: 'expired' });
    const later = url.replace(/exp=\d+/, `exp=${target.expiresAt + 3600}`);
    expect(verify(A, later, target, expiresMs)).toEqual({ ok: false, reason: 'bad signature' });
  });

  it('refuse the 0.2.0 form (a signature of kind and workflow id only) and malformed parameters', () => {
    const old = 'https://cb.example.com/callbacks/video/order-1234-video?sig=abc';
    expect(verify(A, old)).toEqual({ ok: false, reason: 'bad signature' });
    const url = buildCallbackUrl('https://cb.example.com', A, target);
    expect(verify(A, url.replace(/exp=\d+/, 'exp=soon'))).toEqual({ ok: false, reason: 'bad signature' });
    expect(verify(A, url.replace(/&sig=[^&]+/, ''))).toEqual({ ok: false, reason: 'bad signature' });
  });

  it('rotate: the first key signs, every key verifies, a dropped key no longer does', () => {
    const signedByA = buildCallbackUrl('https://cb.example.com', [A], target);
    const signedByB = buildCallbackUrl('https://cb.example.com', [B, A], target);
    expect(signedByB).not.toBe(signedByA);
    // Step 1: receivers verify both, workers still sign with A.
    expect(verify([A, B], signedByA).ok).toBe(true);
    // Step 2: workers sign with B; URLs given out before are still accepted.
    expect(verify([B, A], signedByB).ok).toBe(true);
    expect(verify([B, A], signedByA).ok).toBe(true);
    // Step 3: once every URL signed with A has expired, A is dropped.
    expect(verify([B], signedByB).ok).toBe(true);
    expect(verify([B], signedByA)).toEqual({ ok: false, reason: 'bad signature' });
  });

  it('read a string of keys as CALLBACK_SECRET is read: comma-separated, newest first', () => {
    const fromString = buildCallbackUrl('https://cb.example.com', `${B}, ${A}`, target);
    expect(fromString).toBe(buildCallbackUrl('https://cb.example.com', [B, A], target));
    expect(verify(`${B},${A}`, buildCallbackUrl('https://cb.example.com', [A], target)).ok).toBe(true);
    expect(() => buildCallbackUrl('https://cb.example.com', `${A},`, target)).toThrow(/non-empty/);
  });

  it('name the values a scan and the transport must blank out: the URL and its signature', () => {
    const url = buildCallbackUrl('https://cb.example.com', A, target);
    const sig = queryOf(url).get('sig')!;
    expect(callbackUrlSecrets(url)).toEqual([url, sig]);
    expect(callbackUrlSecrets(undefined)).toEqual([]);
    expect(containsSignedCallbackUrl(`{"body":"${url}"}`)).toBe(true);
    expect(containsSignedCallbackUrl(JSON.stringify({ callback_url: url.replace(sig, '[redacted]') }))).toBe(false);
    // Another service's signed address is not ours (the review service's downstream_final_url).
    expect(containsSignedCallbackUrl('http://cdn.example.com/signed/a.jpg?sig=' + sig)).toBe(false);
  });
});

describe('CALLBACK_SECRET', () => {
  const env = { CALLBACK_PUBLIC_URL: 'https://cb.example.com' };

  it('is a comma-separated list of keys, newest first', () => {
    expect(loadCallbackConfig({ ...env, CALLBACK_SECRET: `${B}, ${A}` }).secret).toEqual([B, A]);
    expect(loadCallbackConfig({ ...env, CALLBACK_SECRET: A }).secret).toEqual([A]);
  });

  it('names the key that is too short, never its value', () => {
    const attempt = () => loadCallbackConfig({ ...env, CALLBACK_SECRET: `${A},short-key` });
    expect(attempt).toThrow(ConfigError);
    expect(attempt).toThrow(/CALLBACK_SECRET.*key 2 of 2 is shorter than 16 characters/);
    expect(attempt).not.toThrow(/short-key/);
    expect(() => loadCallbackConfig(env)).toThrow(/CALLBACK_SECRET.*required/);
  });
});
