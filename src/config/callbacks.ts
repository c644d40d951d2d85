// The callback receiver's variables (CALLBACK_*), read through env.ts: where the services reach it,
// the keys that sign its URLs (several during a rotation), and where it listens.
import { z } from 'zod';
import { allowPrivateUrls, httpUrl, nonEmpty, parse, port, type Env } from './env.js';
import type { CallbackConfig } from './types.js';
import { hostOf, nonPublicHostReason } from '../model/url-rules.js';

export const callbackConfigSchema = z
  .object({
    CALLBACK_PUBLIC_URL: httpUrl.optional(),
    // Comma-separated keys, newest first: the first signs callback URLs, every one verifies (rotation).
    CALLBACK_SECRET: z
      .string()
      .optional()
      .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.split(',').map((k) => k.trim()))),
    CALLBACK_HOST: nonEmpty.default('127.0.0.1'),
    CALLBACK_PORT: port.default(8787),
    ALLOW_PRIVATE_URLS: allowPrivateUrls,
  })
  .superRefine((c, ctx) => {
    if (c.CALLBACK_PUBLIC_URL && !c.CALLBACK_SECRET) {
      ctx.addIssue({
        code: 'custom',
        path: ['CALLBACK_SECRET'],
        message: 'is required (at least 16 characters) when CALLBACK_PUBLIC_URL is set',
      });
    }
    c.CALLBACK_SECRET?.forEach((key, i) => {
      if (key.length < 16) {
        ctx.addIssue({
          code: 'custom',
          path: ['CALLBACK_SECRET'],
          message: `key ${i + 1} of ${c.CALLBACK_SECRET!.length} is shorter than 16 characters (keys are comma-separated, newest first)`,
        });
      }
    });
    // The services call this address from the public internet; the host is checked as written (no DNS).
    const reason =
      c.CALLBACK_PUBLIC_URL && !c.ALLOW_PRIVATE_URLS
        ? nonPublicHostReason(hostOf(c.CALLBACK_PUBLIC_URL) ?? '')
        : undefined;
    if (reason) {
      ctx.addIssue({
        code: 'custom',
        path: ['CALLBACK_PUBLIC_URL'],
        message: `must be a public address the services can reach (${reason}); set ALLOW_PRIVATE_URLS=true only for the sandbox or tests`,
      });
    }
  });

export function loadCallbackConfig(env: Env = process.env): CallbackConfig {
  const c = parse(callbackConfigSchema, env);
  return { publicUrl: c.CALLBACK_PUBLIC_URL, secret: c.CALLBACK_SECRET, host: c.CALLBACK_HOST, port: c.CALLBACK_PORT };
}
