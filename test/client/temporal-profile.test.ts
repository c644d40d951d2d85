// A temporal.toml profile (@temporalio/envconfig: TEMPORAL_CONFIG_FILE, TEMPORAL_PROFILE) gives the
// namespace and address when TEMPORAL_NAMESPACE / TEMPORAL_ADDRESS are unset; the variables still win;
// `default` and localhost:7233 when neither says. A client made from such an env uses that namespace.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { connectClient } from '../../src/temporal/connect-client.js';
import { ConfigError } from '../../src/config/env.js';
import { loadTemporalConfig } from '../../src/config/temporal.js';

const API_KEY = 'tcld-SECRET-KEY-5e1d0c';
let dir: string;
let file: string;
const write = (name: string, text: string): string => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rtg-profile-'));
  file = write(
    'temporal.toml',
    [
      '[profile.default]',
      'address = "temporal.internal:7233"',
      'namespace = "from-default-profile"',
      '',
      '[profile.cloud]',
      'address = "prod.a1b2c.tmprl.cloud:7233"',
      'namespace = "prod.a1b2c"',
      `api_key = "${API_KEY}"`,
      '',
      '[profile.bare]',
      'address = "bare.internal:7233"',
      '',
    ].join('\n'),
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('loadTemporalConfig with a temporal.toml profile', () => {
  it("uses the default profile's namespace and address when the variables are unset", () => {
    expect(loadTemporalConfig({ TEMPORAL_CONFIG_FILE: file })).toEqual({
      address: 'temporal.internal:7233',
      namespace: 'from-default-profile',
      taskQueue: 'video-generation',
    });
  });

  it('uses the profile TEMPORAL_PROFILE names', () => {
    expect(loadTemporalConfig({ TEMPORAL_CONFIG_FILE: file, TEMPORAL_PROFILE: 'cloud' })).toMatchObject({
      address: 'prod.a1b2c.tmprl.cloud:7233',
      namespace: 'prod.a1b2c',
    });
  });

  it('lets TEMPORAL_NAMESPACE and TEMPORAL_ADDRESS win, each on its own; an empty one counts as unset', () => {
    expect(
      loadTemporalConfig({ TEMPORAL_CONFIG_FILE: file, TEMPORAL_PROFILE: 'cloud', TEMPORAL_NAMESPACE: 'explicit' }),
    ).toMatchObject({
      address: 'prod.a1b2c.tmprl.cloud:7233',
      namespace: 'explicit',
    });
    expect(loadTemporalConfig({ TEMPORAL_CONFIG_FILE: file, TEMPORAL_ADDRESS: 'other:7233' })).toMatchObject({
      address: 'other:7233',
      namespace: 'from-default-profile',
    });
    expect(loadTemporalConfig({ TEMPORAL_CONFIG_FILE: file, TEMPORAL_NAMESPACE: '' }).namespace).toBe(
      'from-default-profile',
    );
  });

  it('falls back to default / localhost:7233 without a file, or when the profile names no namespace', () => {
    expect(loadTemporalConfig({ TEMPORAL_CONFIG_FILE: join(dir, 'absent.toml') })).toEqual({
      address: 'localhost:7233',
      namespace: 'default',
      taskQueue: 'video-generation',
    });
    expect(loadTemporalConfig({})).toMatchObject({ address: 'localhost:7233', namespace: 'default' });
    expect(loadTemporalConfig({ TEMPORAL_CONFIG_FILE: file, TEMPORAL_PROFILE: 'bare' })).toMatchObject({
      address: 'bare.internal:7233',
      namespace: 'default',
    });
  });

  it('reads the process environment by default', () => {
    const saved = {
      file: process.env.TEMPORAL_CONFIG_FILE,
      profile: process.env.TEMPORAL_PROFILE,
      ns: process.env.TEMPORAL_NAMESPACE,
    };
    try {
      process.env.TEMPORAL_CONFIG_FILE = file;
      process.env.TEMPORAL_PROFILE = 'cloud';
      delete process.env.TEMPORAL_NAMESPACE;
      expect(loadTemporalConfig().namespace).toBe('prod.a1b2c');
    } finally {
      for (const [k, v] of [
        ['TEMPORAL_CONFIG_FILE', saved.file],
        ['TEMPORAL_PROFILE', saved.profile],
        ['TEMPORAL_NAMESPACE', saved.ns],
      ] as const) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  });

  it('names a missing profile, and never quotes a broken file (it may hold an API key)', () => {
    expect(() => loadTemporalConfig({ TEMPORAL_CONFIG_FILE: file, TEMPORAL_PROFILE: 'staging' })).toThrow(ConfigError);
    expect(() => loadTemporalConfig({ TEMPORAL_CONFIG_FILE: file, TEMPORAL_PROFILE: 'staging' })).toThrow(
      /Profile 'staging' not found/,
    );
    const broken = write('broken.toml', `[profile.default]\napi_key = "${API_KEY}\nnamespace = = "x"\n`);
    let message = '';
    try {
      loadTemporalConfig({ TEMPORAL_CONFIG_FILE: broken });
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      message = (err as Error).message;
    }
    expect(message).toMatch(/TEMPORAL_CONFIG_FILE: the Temporal config file could not be read as TOML/);
    expect(message).not.toContain(API_KEY);
    // With both variables set, the file is not needed and not read.
    expect(
      loadTemporalConfig({ TEMPORAL_CONFIG_FILE: broken, TEMPORAL_ADDRESS: 'a:1', TEMPORAL_NAMESPACE: 'n' }),
    ).toMatchObject({ address: 'a:1', namespace: 'n' });
  });
});

describe('connectClient with a profile', () => {
  it("connects to the profile's address and uses its namespace", async () => {
    const profile = write(
      'dev.toml',
      `[profile.dev]\naddress = "${inject('temporalAddress')}"\nnamespace = "profile-namespace"\n`,
    );
    const saved = process.env.TEMPORAL_ADDRESS;
    delete process.env.TEMPORAL_ADDRESS; // the connection reads envconfig's variables from the process
    try {
      const connected = await connectClient({ TEMPORAL_CONFIG_FILE: profile, TEMPORAL_PROFILE: 'dev' });
      try {
        expect(connected.config).toMatchObject({ address: inject('temporalAddress'), namespace: 'profile-namespace' });
        expect(connected.client.options.namespace).toBe('profile-namespace');
      } finally {
        await connected.close();
      }
    } finally {
      if (saved !== undefined) process.env.TEMPORAL_ADDRESS = saved;
    }
  });
});
