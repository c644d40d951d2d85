// Reading the environment: the one parser every part of the configuration goes through (it names the
// variable and the rule, never the value: secrets live only in the configuration and the clients built
// from it, never in workflow input, history, logs or error messages), and the field rules they share.
import { z } from 'zod';

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** The environment as read: `process.env`, or a test's own record. */
export type Env = Record<string, string | undefined>;

/** Drops empty strings so that `FOO=` in a shell means "unset" and takes the default. */
export function present(env: Env): Env {
  return Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
}

export function parse<T extends z.ZodType>(schema: T, env: Env): z.infer<T> {
  const r = schema.safeParse(present(env));
  if (!r.success) {
    // Name the variable and the rule, never the value (it may be a secret).
    const lines = r.error.issues.map((i) => `${i.path.join('.') || '(env)'} ${i.message}`);
    throw new ConfigError(`invalid configuration: ${lines.join('; ')}`);
  }
  return r.data;
}

export const nonEmpty = z.string().trim().min(1);
export const httpUrl = z
  .string()
  .trim()
  .url()
  .refine((u) => /^https?:\/\//i.test(u), 'must be an http(s) URL')
  .transform((u) => u.replace(/\/+$/, ''));
export const port = z.coerce.number().int().min(0).max(65535);
/** true/false/1/0 (any case); anything else is refused rather than read as false. */
const flag = z
  .string()
  .trim()
  .toLowerCase()
  .pipe(z.enum(['true', 'false', '1', '0'], { error: 'must be true, false, 1 or 0' }))
  .transform((v) => v === 'true' || v === '1');

/** One setting for the clients and the callback address: accept loopback/private/link-local addresses. */
export const allowPrivateUrls = flag.default(false);

/** ALLOW_PRIVATE_URLS (default false): the worker prints it at start. */
export function loadAllowPrivateUrls(env: Env = process.env): boolean {
  return parse(z.object({ ALLOW_PRIVATE_URLS: allowPrivateUrls }), env).ALLOW_PRIVATE_URLS;
}
