// The payload encryption keys (docs/encryption.md): `id:base64key` entries from PAYLOAD_ENCRYPTION_KEYS
// (comma separated) or from the file named by PAYLOAD_ENCRYPTION_KEYS_FILE (one a line or comma separated).
// The first key encrypts, every key decrypts: rotation puts the new key first and keeps the old ones.
// Errors name the variable, the entry and the key id, never key material (a misplaced key could be an id).
import { createSecretKey, randomBytes, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ConfigError } from '../config/env.js';
import { loadEncryptionConfig } from '../config/encryption.js';

export const KEY_BYTES = 32; // AES-256
const KEY_ID = /^[A-Za-z0-9._-]{1,64}$/;
/** Standard or URL-safe alphabet (Node's base64 decoder reads both). */
const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/;

export type KeySource = 'PAYLOAD_ENCRYPTION_KEYS' | 'PAYLOAD_ENCRYPTION_KEYS_FILE';

export interface PayloadKey {
  readonly id: string;
  /** A KeyObject: its material never shows in logs, util.inspect or JSON. */
  readonly key: KeyObject;
}

export interface PayloadKeys {
  /** Where they came from, for error messages. */
  readonly source: KeySource;
  /** In the given order: `keys[0]` encrypts. Never empty. */
  readonly keys: readonly PayloadKey[];
}

const invalid = (source: KeySource, why: string) => new ConfigError(`invalid configuration: ${source} ${why}`);

/** Parses `id:base64key` entries separated by commas or newlines; blank lines and `#` comments are skipped. */
export function parsePayloadKeys(text: string, source: KeySource = 'PAYLOAD_ENCRYPTION_KEYS'): PayloadKeys {
  const entries = text
    .split(/[\n,]/)
    .map((e) => e.trim())
    .filter((e) => e !== '' && !e.startsWith('#'));
  if (entries.length === 0) throw invalid(source, 'holds no key (expected id:base64key, ...)');
  const keys: PayloadKey[] = [];
  entries.forEach((entry, i) => {
    const at = `entry ${i + 1}`;
    const colon = entry.indexOf(':');
    if (colon < 0) throw invalid(source, `${at} is not id:base64key`);
    const id = entry.slice(0, colon).trim();
    const material = entry.slice(colon + 1).trim();
    if (!KEY_ID.test(id)) throw invalid(source, `${at}: a key id is 1-64 letters, digits, '.', '_' or '-'`);
    if (keys.some((k) => k.id === id)) throw invalid(source, `key id '${id}' appears more than once`);
    const bytes = BASE64.test(material) ? Buffer.from(material, 'base64') : undefined;
    if (!bytes) throw invalid(source, `key '${id}' is not base64`);
    if (bytes.length !== KEY_BYTES)
      throw invalid(
        source,
        `key '${id}' must be ${KEY_BYTES} bytes (got ${bytes.length}); make one with: openssl rand -base64 32`,
      );
    keys.push({ id, key: createSecretKey(bytes) });
    bytes.fill(0);
  });
  return { source, keys };
}

/** The keys the environment configures, or undefined when encryption is off (neither variable set). */
export function loadPayloadKeys(env: Record<string, string | undefined> = process.env): PayloadKeys | undefined {
  const config = loadEncryptionConfig(env);
  if (config.keys !== undefined) return parsePayloadKeys(config.keys, 'PAYLOAD_ENCRYPTION_KEYS');
  if (config.keysFile === undefined) return undefined;
  let text: string;
  try {
    text = readFileSync(config.keysFile, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'unreadable';
    throw invalid('PAYLOAD_ENCRYPTION_KEYS_FILE', `cannot be read: ${config.keysFile} (${code})`);
  }
  return parsePayloadKeys(text, 'PAYLOAD_ENCRYPTION_KEYS_FILE');
}

/** A new random key, base64, for `id:<key>` (what `openssl rand -base64 32` prints). */
export function newPayloadKey(): string {
  return randomBytes(KEY_BYTES).toString('base64');
}
