// Parsing PAYLOAD_ENCRYPTION_KEYS / PAYLOAD_ENCRYPTION_KEYS_FILE: entry order (the first key encrypts),
// validation that names the variable, the entry and the key id, and never prints key material.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/env.js';
import { loadCodecServerConfig } from '../../src/config/encryption.js';
import { dataConverterFromEnv, describeEncryption, failureConverterPath } from '../../src/codec/data-converter.js';
import { loadPayloadKeys, newPayloadKey, parsePayloadKeys } from '../../src/codec/keys.js';

const k1 = newPayloadKey();
const k2 = newPayloadKey();
const short = Buffer.alloc(16, 7).toString('base64');
const dir = mkdtempSync(join(tmpdir(), 'rtg-keys-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The error's message, checked never to contain any key material given. */
function failure(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    const message = (err as Error).message;
    for (const secret of [k1, k2, short]) expect(message).not.toContain(secret);
    return message;
  }
  throw new Error('expected an error');
}

describe('payload keys', () => {
  it('reads id:base64key entries in order, comma or newline separated; the first one encrypts', () => {
    const keys = parsePayloadKeys(` b:${k2} ,\na:${k1}\n# old keys stay below\n`);
    expect(keys.source).toBe('PAYLOAD_ENCRYPTION_KEYS');
    expect(keys.keys.map((k) => k.id)).toEqual(['b', 'a']);
    expect(keys.keys[0]!.key.symmetricKeySize).toBe(32);
    // URL-safe base64 reads too.
    const urlSafe = Buffer.alloc(32, 0xfb).toString('base64url');
    expect(parsePayloadKeys(`u:${urlSafe}`).keys[0]!.key.export()).toEqual(Buffer.alloc(32, 0xfb));
    // The material never shows when the keys are logged or serialized.
    const shown = `${inspect(keys, { depth: 5 })} ${JSON.stringify(keys)}`;
    for (const secret of [k1, k2]) expect(shown).not.toContain(secret);
    expect(shown).not.toContain(Buffer.from(k1, 'base64').toString('hex'));
  });

  it('refuses bad entries with the variable, the entry and the key id named, never the material', () => {
    expect(failure(() => parsePayloadKeys(` , # nothing`))).toBe(
      'invalid configuration: PAYLOAD_ENCRYPTION_KEYS holds no key (expected id:base64key, ...)',
    );
    expect(failure(() => parsePayloadKeys(`a:${k1},${k2}`))).toBe(
      'invalid configuration: PAYLOAD_ENCRYPTION_KEYS entry 2 is not id:base64key',
    );
    expect(failure(() => parsePayloadKeys(`a:${k1},a:${k2}`))).toBe(
      "invalid configuration: PAYLOAD_ENCRYPTION_KEYS key id 'a' appears more than once",
    );
    expect(failure(() => parsePayloadKeys(`new:${short}`))).toBe(
      "invalid configuration: PAYLOAD_ENCRYPTION_KEYS key 'new' must be 32 bytes (got 16); make one with: openssl rand -base64 32",
    );
    expect(failure(() => parsePayloadKeys(`a:not base64!`))).toBe(
      "invalid configuration: PAYLOAD_ENCRYPTION_KEYS key 'a' is not base64",
    );
    // Key and id swapped: the "id" is key material, so it is not repeated.
    expect(failure(() => parsePayloadKeys(`${k1}:a`))).toBe(
      "invalid configuration: PAYLOAD_ENCRYPTION_KEYS entry 1: a key id is 1-64 letters, digits, '.', '_' or '-'",
    );
  });

  it('reads the environment: unset is off, a file works the same, both at once is refused', () => {
    expect(loadPayloadKeys({})).toBeUndefined();
    expect(loadPayloadKeys({ PAYLOAD_ENCRYPTION_KEYS: '' })).toBeUndefined(); // `VAR=` means unset
    expect(dataConverterFromEnv({})).toBeUndefined();
    expect(describeEncryption(undefined)).toBe('off');

    const file = join(dir, 'keys');
    writeFileSync(file, `# rotated 2026-11\nk2:${k2}\nk1:${k1}\n`);
    const fromFile = loadPayloadKeys({ PAYLOAD_ENCRYPTION_KEYS_FILE: file })!;
    expect(fromFile.source).toBe('PAYLOAD_ENCRYPTION_KEYS_FILE');
    expect(fromFile.keys.map((k) => k.id)).toEqual(['k2', 'k1']);
    const converter = dataConverterFromEnv({ PAYLOAD_ENCRYPTION_KEYS_FILE: file })!;
    expect(converter.failureConverterPath).toBe(failureConverterPath);
    expect(describeEncryption(converter)).toBe("on (encrypting with key 'k2'; decrypting k2, k1)");

    writeFileSync(file, `k2:${short}\n`);
    expect(failure(() => loadPayloadKeys({ PAYLOAD_ENCRYPTION_KEYS_FILE: file }))).toBe(
      "invalid configuration: PAYLOAD_ENCRYPTION_KEYS_FILE key 'k2' must be 32 bytes (got 16); make one with: openssl rand -base64 32",
    );
    expect(failure(() => loadPayloadKeys({ PAYLOAD_ENCRYPTION_KEYS_FILE: join(dir, 'missing') }))).toBe(
      `invalid configuration: PAYLOAD_ENCRYPTION_KEYS_FILE cannot be read: ${join(dir, 'missing')} (ENOENT)`,
    );
    expect(
      failure(() => loadPayloadKeys({ PAYLOAD_ENCRYPTION_KEYS: `a:${k1}`, PAYLOAD_ENCRYPTION_KEYS_FILE: file })),
    ).toBe(
      'invalid configuration: PAYLOAD_ENCRYPTION_KEYS_FILE must not be set together with PAYLOAD_ENCRYPTION_KEYS (set one of them)',
    );
  });

  it('reads the codec server settings with the defaults of src/config/encryption.ts', () => {
    expect(loadCodecServerConfig({})).toEqual({ host: '127.0.0.1', port: 8888, corsOrigins: [], authToken: undefined });
    expect(
      loadCodecServerConfig({
        CODEC_HOST: '0.0.0.0',
        CODEC_PORT: '9999',
        CODEC_CORS_ORIGINS: 'http://localhost:8080, https://UI.example.com',
        CODEC_AUTH_TOKEN: 'a-token-of-16-chars-at-least',
      }),
    ).toEqual({
      host: '0.0.0.0',
      port: 9999,
      corsOrigins: ['http://localhost:8080', 'https://ui.example.com'],
      authToken: 'a-token-of-16-chars-at-least',
    });
    expect(() => loadCodecServerConfig({ CODEC_CORS_ORIGINS: 'http://localhost:8080/ui' })).toThrow(
      'invalid configuration: CODEC_CORS_ORIGINS.0 must list origins such as http://localhost:8080 (no path)',
    );
    const tooShort = 'short-token';
    const err = failureOf(() => loadCodecServerConfig({ CODEC_AUTH_TOKEN: tooShort }));
    expect(err).toBe('invalid configuration: CODEC_AUTH_TOKEN must be at least 16 characters');
  });
});

function failureOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('expected an error');
}
