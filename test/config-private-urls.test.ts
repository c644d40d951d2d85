// ALLOW_PRIVATE_URLS (src/config/env.ts): one setting, false by default, that lets loopback/private/link-local
// media and callback addresses through. Without it a non-public CALLBACK_PUBLIC_URL is refused at start.
import { describe, expect, it } from 'vitest';
import { activitiesFromEnv } from '../src/activities/index.js';
import { loadCallbackConfig } from '../src/config/callbacks.js';
import { ConfigError, loadAllowPrivateUrls } from '../src/config/env.js';
import { loadServicesConfig } from '../src/config/services.js';

const SECRET = 'cb-secret-0123456789abcdef';
const services = {
  VIDEO_API_BASE_URL: 'https://video.example.com',
  VIDEO_API_KEY: 'k-test',
  REVIEW_API_BASE_URL: 'https://review.example.com',
  REVIEW_ACCESS_TOKEN: 't-test',
};

function configError(load: () => unknown): ConfigError {
  try {
    load();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

describe('ALLOW_PRIVATE_URLS', () => {
  it('is false by default (unset or empty) and reaches both client configs', () => {
    for (const env of [services, { ...services, ALLOW_PRIVATE_URLS: '' }]) {
      expect(loadAllowPrivateUrls(env)).toBe(false);
      const c = loadServicesConfig(env);
      expect([c.video.allowPrivateUrls, c.review.allowPrivateUrls]).toEqual([false, false]);
    }
    const on = loadServicesConfig({ ...services, ALLOW_PRIVATE_URLS: 'true' });
    expect([on.video.allowPrivateUrls, on.review.allowPrivateUrls]).toEqual([true, true]);
  });

  it.each([
    ['true', true],
    ['TRUE', true],
    ['1', true],
    [' true ', true],
    ['false', false],
    ['0', false],
  ])('reads %j as %s', (value, expected) => {
    expect(loadAllowPrivateUrls({ ALLOW_PRIVATE_URLS: value })).toBe(expected);
  });

  it.each(['yes', 'on', '2'])('refuses %j naming the variable', (value) => {
    expect(configError(() => loadAllowPrivateUrls({ ALLOW_PRIVATE_URLS: value })).message).toBe(
      'invalid configuration: ALLOW_PRIVATE_URLS must be true, false, 1 or 0',
    );
    expect(() => loadServicesConfig({ ...services, ALLOW_PRIVATE_URLS: value })).toThrow(/ALLOW_PRIVATE_URLS/);
  });
});

describe('CALLBACK_PUBLIC_URL must be public unless ALLOW_PRIVATE_URLS', () => {
  it.each([
    'http://127.0.0.1:8787',
    'http://localhost:8787',
    'http://callbacks.localhost',
    'http://10.0.0.5:8787',
    'http://172.20.1.1',
    'http://192.168.1.2:8787',
    'http://169.254.1.1',
    'http://[::1]:8787',
    'http://[fe80::1]',
    'http://[::ffff:10.0.0.1]',
    // What the URL parser reads, not the text: a backslash ends the host; CGNAT and documentation ranges.
    'http://127.0.0.1\\@callbacks.example.com:8787',
    'http://%31%32%37.0.0.1:8787',
    'http://100.64.0.1:8787',
    'https://203.0.113.9',
  ])('refuses %s at start, naming the variable and the way out', (url) => {
    const err = configError(() => loadCallbackConfig({ CALLBACK_PUBLIC_URL: url, CALLBACK_SECRET: SECRET }));
    expect(err.message).toMatch(
      /^invalid configuration: CALLBACK_PUBLIC_URL must be a public address the services can reach \(.+\); set ALLOW_PRIVATE_URLS=true only for the sandbox or tests$/,
    );
    expect(err.message).not.toContain(SECRET);
    // activitiesFromEnv (a user's own worker) reads the same configuration.
    expect(() => activitiesFromEnv({ ...services, CALLBACK_PUBLIC_URL: url, CALLBACK_SECRET: SECRET })).toThrow(
      /CALLBACK_PUBLIC_URL must be a public address/,
    );
    // The one explicit setting lets it through.
    expect(
      loadCallbackConfig({ CALLBACK_PUBLIC_URL: url, CALLBACK_SECRET: SECRET, ALLOW_PRIVATE_URLS: 'true' }).publicUrl,
    ).toBe(url);
  });

  it.each(['https://hooks.example.com/rtg', 'http://callbacks:8787', 'https://8.8.8.8', 'https://[2606:4700::1111]'])(
    'accepts %s (names are taken as written, not resolved)',
    (url) => {
      expect(loadCallbackConfig({ CALLBACK_PUBLIC_URL: url, CALLBACK_SECRET: SECRET }).publicUrl).toBe(url);
    },
  );

  it('unset stays polling only, whatever ALLOW_PRIVATE_URLS says', () => {
    expect(loadCallbackConfig({}).publicUrl).toBeUndefined();
    expect(loadCallbackConfig({ ALLOW_PRIVATE_URLS: 'false' }).publicUrl).toBeUndefined();
  });
});
