// Notification signatures (src/notify/signing.ts) against the official Standard Webhooks library
// (`standardwebhooks`, a verifier we did not write): what we sign, it accepts; what it signs, we accept;
// a tampered body, an old timestamp and a wrong secret are refused by both. And NOTIFY_* (src/config/notify.ts).
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { loadNotifyConfig } from '../../src/config/notify.js';
import { ConfigError } from '../../src/config/env.js';
import {
  newNotifySecret,
  NotificationVerificationError,
  signNotification,
  verifyNotification,
} from '../../src/index.js';
import { notifySecretProblem } from '../../src/notify/signing.js';

const SECRET = newNotifySecret();
const NEXT = newNotifySecret();
const BODY = JSON.stringify({
  type: 'job.succeeded',
  timestamp: '2026-01-01T00:00:00.000Z',
  data: { event: 'succeeded' },
});
const ID = 'job-1/notify/succeeded/run-1';
const now = () => Math.floor(Date.now() / 1000);

function refusedByUs(headers: Record<string, string>, body: string, secrets: string | string[]): string {
  try {
    verifyNotification(headers, body, secrets);
  } catch (err) {
    expect(err).toBeInstanceOf(NotificationVerificationError);
    return (err as NotificationVerificationError).reason;
  }
  throw new Error('expected a NotificationVerificationError');
}

function refusedByLibrary(headers: Record<string, string>, body: string, secret: string): string {
  try {
    new Webhook(secret).verify(body, headers);
  } catch (err) {
    expect(err).toBeInstanceOf(WebhookVerificationError);
    return (err as Error).message;
  }
  throw new Error('expected a WebhookVerificationError');
}

describe('notification signatures (Standard Webhooks)', () => {
  it('what we sign verifies with the standardwebhooks library, and with ours', () => {
    const headers = { ...signNotification(SECRET, ID, now(), BODY) };
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(new Webhook(SECRET).verify(BODY, headers)).toEqual(JSON.parse(BODY));
    expect(verifyNotification(headers, BODY, SECRET)).toEqual(JSON.parse(BODY));
    // Node's req.headers (lower case) and a Fetch Headers object read the same.
    expect(verifyNotification(new Headers(headers), Buffer.from(BODY), [SECRET])).toEqual(JSON.parse(BODY));
  });

  it('what the library signs verifies with ours', () => {
    const ts = new Date();
    const signature = new Webhook(SECRET).sign(ID, ts, BODY);
    const headers = {
      'webhook-id': ID,
      'webhook-timestamp': String(Math.floor(ts.getTime() / 1000)),
      'webhook-signature': signature,
    };
    expect(signature).toBe(signNotification(SECRET, ID, ts.getTime() / 1000, BODY)['webhook-signature']);
    expect(verifyNotification(headers, BODY, SECRET)).toEqual(JSON.parse(BODY));
  });

  it('refuses a tampered body, an old or future timestamp, a wrong secret and missing headers, as the library does', () => {
    const headers = { ...signNotification(SECRET, ID, now(), BODY) };
    const tampered = BODY.replace('succeeded', 'failed');
    expect(refusedByUs(headers, tampered, SECRET)).toBe('bad signature');
    expect(refusedByLibrary(headers, tampered, SECRET)).toMatch(/No matching signature/);

    const old = { ...signNotification(SECRET, ID, now() - 10 * 60, BODY) };
    expect(refusedByUs(old, BODY, SECRET)).toBe('timestamp too old');
    expect(refusedByLibrary(old, BODY, SECRET)).toMatch(/too old/);
    const future = { ...signNotification(SECRET, ID, now() + 10 * 60, BODY) };
    expect(refusedByUs(future, BODY, SECRET)).toBe('timestamp too new');
    expect(refusedByLibrary(future, BODY, SECRET)).toMatch(/too new/);

    const wrong = newNotifySecret();
    expect(refusedByUs(headers, BODY, wrong)).toBe('bad signature');
    expect(refusedByLibrary(headers, BODY, wrong)).toMatch(/No matching signature/);
    // Another id or timestamp under the same signature: the signature covers them.
    expect(refusedByUs({ ...headers, 'webhook-id': 'other' }, BODY, SECRET)).toBe('bad signature');
    expect(refusedByLibrary({ ...headers, 'webhook-id': 'other' }, BODY, SECRET)).toMatch(/No matching signature/);

    const { ['webhook-signature']: _dropped, ...unsigned } = headers;
    expect(refusedByUs(unsigned, BODY, SECRET)).toBe('missing headers');
    expect(refusedByLibrary(unsigned, BODY, SECRET)).toMatch(/Missing required headers/);
  });

  it('signs with every key during a rotation: each key alone verifies it, with the library too', () => {
    const headers = { ...signNotification(`${NEXT},${SECRET}`, ID, now(), BODY) };
    const signatures = headers['webhook-signature'].split(' ');
    expect(signatures).toHaveLength(2);
    expect(signatures.every((s) => s.startsWith('v1,'))).toBe(true);
    for (const key of [NEXT, SECRET]) {
      expect(new Webhook(key).verify(BODY, headers)).toEqual(JSON.parse(BODY));
      expect(verifyNotification(headers, BODY, key)).toEqual(JSON.parse(BODY));
    }
    // A receiver that already has only the new key, or still only the old one, accepts it.
    expect(verifyNotification({ ...signNotification(NEXT, ID, now(), BODY) }, BODY, [NEXT, SECRET])).toEqual(
      JSON.parse(BODY),
    );
  });

  it('takes only whsec_ secrets of 24 to 64 bytes, and names the rule, not the secret', () => {
    expect(notifySecretProblem(SECRET)).toBeUndefined();
    expect(notifySecretProblem('plain-secret-of-some-length')).toMatch(/must start with whsec_/);
    expect(notifySecretProblem('whsec_not base64!')).toMatch(/base64/);
    expect(notifySecretProblem(`whsec_${Buffer.alloc(16).toString('base64')}`)).toMatch(/24 to 64 bytes.*16/);
  });
});

describe('NOTIFY_URL, NOTIFY_SECRET, NOTIFY_WINDOW_MS', () => {
  it('are optional; the window defaults to 24 h', () => {
    expect(loadNotifyConfig({})).toEqual({
      url: undefined,
      secrets: undefined,
      windowMs: 86_400_000,
      allowPrivateUrls: false,
    });
    expect(
      loadNotifyConfig({
        NOTIFY_URL: 'https://hooks.example.com/in/',
        NOTIFY_SECRET: ` ${NEXT} , ${SECRET} `,
        NOTIFY_WINDOW_MS: '60000',
      }),
    ).toEqual({
      url: 'https://hooks.example.com/in/',
      secrets: [NEXT, SECRET],
      windowMs: 60_000,
      allowPrivateUrls: false,
    });
  });

  it.each([
    [{ NOTIFY_URL: 'https://hooks.example.com' }, /NOTIFY_SECRET is required when NOTIFY_URL is set/],
    [
      { NOTIFY_URL: 'http://127.0.0.1:9000', NOTIFY_SECRET: SECRET },
      /NOTIFY_URL must be a public address \(127\.0\.0\.1 is a loopback/,
    ],
    [
      { NOTIFY_URL: 'http://10.1.2.3', NOTIFY_SECRET: SECRET },
      /NOTIFY_URL must be a public address.*ALLOW_PRIVATE_URLS/,
    ],
    [{ NOTIFY_SECRET: `${SECRET},not-a-whsec-key` }, /NOTIFY_SECRET key 2 of 2 must start with whsec_/],
    [{ NOTIFY_WINDOW_MS: '10' }, /NOTIFY_WINDOW_MS/],
    [{ NOTIFY_URL: 'ftp://hooks.example.com', NOTIFY_SECRET: SECRET }, /NOTIFY_URL must be an http\(s\) URL/],
  ])('refuses a bad setting (%#), naming the variable', (env, message) => {
    let error: unknown;
    try {
      loadNotifyConfig(env);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).not.toContain(SECRET);
  });

  it('accepts a private NOTIFY_URL with ALLOW_PRIVATE_URLS=true (the sandbox, tests)', () => {
    expect(
      loadNotifyConfig({ NOTIFY_URL: 'http://127.0.0.1:9000/hook', NOTIFY_SECRET: SECRET, ALLOW_PRIVATE_URLS: 'true' }),
    ).toMatchObject({ url: 'http://127.0.0.1:9000/hook', allowPrivateUrls: true });
  });
});
