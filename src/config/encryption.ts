// Payload encryption and the codec server, from the environment (docs/encryption.md): the variables and
// their rules read as every other part's (env.ts); the keys themselves are parsed by src/codec/keys.ts.
import { z } from 'zod';
import { nonEmpty, parse, port, type Env } from './env.js';
import type { CodecServerConfig, EncryptionConfig } from './types.js';

/** CODEC_HOST, CODEC_PORT: where `npm run codec-server` listens. */
export const CODEC_SERVER_DEFAULTS = { host: '127.0.0.1', port: 8888 } as const;

export const encryptionConfigSchema = z
  .object({
    PAYLOAD_ENCRYPTION_KEYS: nonEmpty.optional(),
    PAYLOAD_ENCRYPTION_KEYS_FILE: nonEmpty.optional(),
  })
  .superRefine((c, ctx) => {
    // Two sources would leave it unclear which key encrypts.
    if (c.PAYLOAD_ENCRYPTION_KEYS !== undefined && c.PAYLOAD_ENCRYPTION_KEYS_FILE !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['PAYLOAD_ENCRYPTION_KEYS_FILE'],
        message: 'must not be set together with PAYLOAD_ENCRYPTION_KEYS (set one of them)',
      });
    }
  });

/** A browser origin as the Web UI's requests carry it: scheme, host and port, no path. */
const origin = z
  .string()
  .trim()
  .refine((o) => /^https?:\/\/[^/\s]+$/i.test(o), 'must list origins such as http://localhost:8080 (no path)')
  .transform((o) => o.toLowerCase());

export const codecServerConfigSchema = z.object({
  CODEC_HOST: nonEmpty.default(CODEC_SERVER_DEFAULTS.host),
  CODEC_PORT: port.default(CODEC_SERVER_DEFAULTS.port),
  /** Unset: no browser origin may call it (non-browser clients such as the Temporal CLI still can). */
  CODEC_CORS_ORIGINS: z
    .string()
    .transform((s) => s.split(',').filter((o) => o.trim() !== ''))
    .pipe(z.array(origin))
    .default([]),
  CODEC_AUTH_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
});

export function loadEncryptionConfig(env: Env = process.env): EncryptionConfig {
  const c = parse(encryptionConfigSchema, env);
  return { keys: c.PAYLOAD_ENCRYPTION_KEYS, keysFile: c.PAYLOAD_ENCRYPTION_KEYS_FILE };
}

export function loadCodecServerConfig(env: Env = process.env): CodecServerConfig {
  const c = parse(codecServerConfigSchema, env);
  return { host: c.CODEC_HOST, port: c.CODEC_PORT, corsOrigins: c.CODEC_CORS_ORIGINS, authToken: c.CODEC_AUTH_TOKEN };
}
