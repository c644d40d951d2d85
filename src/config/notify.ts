// The worker's notification variables (NOTIFY_*, issue 27, docs/webhooks.md), read through env.ts:
// the default address of jobs that name none, the keys that sign (several during a rotation), and how long
// a notification is retried. The address follows the callback address's rule: public unless
// ALLOW_PRIVATE_URLS.
import { z } from 'zod';
import { allowPrivateUrls, ConfigError, parse, type Env } from './env.js';
import { NOTIFY_WINDOW } from '../model/notify.js';
import { nonPublicUrlReason } from '../model/url-rules.js';
import { notifySecretList, notifySecretProblem } from '../notify/signing.js';

/** What the notify activities need: where, with which keys, for how long, and whether private hosts pass. */
export interface NotifySettings {
  /** NOTIFY_URL: where jobs without `notify.url` are notified; undefined = they are not. */
  url?: string | undefined;
  /** NOTIFY_SECRET's `whsec_` keys, newest first: every one signs. Undefined = nothing can be sent. */
  secrets?: readonly string[] | undefined;
  /** NOTIFY_WINDOW_MS: how long a notification is retried (jobs may set their own `notify.windowMs`). */
  windowMs?: number | undefined;
  /** ALLOW_PRIVATE_URLS: loopback and private notification addresses accepted (sandbox, tests). */
  allowPrivateUrls?: boolean | undefined;
  /** Deadline of one attempt's HTTP call, ms (default 15 s). */
  timeoutMs?: number | undefined;
}

export const notifyConfigSchema = z
  .object({
    // Taken as written (a receiver's path may end with a slash).
    NOTIFY_URL: z
      .string()
      .trim()
      .url()
      .refine((u) => /^https?:\/\//i.test(u), 'must be an http(s) URL')
      .optional(),
    // Comma-separated `whsec_` keys, newest first: each signs every notification (rotation).
    NOTIFY_SECRET: z
      .string()
      .optional()
      .transform((v) => (v === undefined || v.trim() === '' ? undefined : notifySecretList(v))),
    NOTIFY_WINDOW_MS: z.coerce.number().int().min(NOTIFY_WINDOW.minMs).max(NOTIFY_WINDOW.maxMs).optional(),
  })
  .superRefine((c, ctx) => {
    if (c.NOTIFY_URL && !c.NOTIFY_SECRET)
      ctx.addIssue({ code: 'custom', path: ['NOTIFY_SECRET'], message: 'is required when NOTIFY_URL is set' });
    c.NOTIFY_SECRET?.forEach((secret, i) => {
      const problem = notifySecretProblem(secret);
      if (problem)
        ctx.addIssue({
          code: 'custom',
          path: ['NOTIFY_SECRET'],
          message: `key ${i + 1} of ${c.NOTIFY_SECRET!.length} ${problem} (keys are comma-separated)`,
        });
    });
  });

export function loadNotifyConfig(env: Env = process.env): NotifySettings {
  const c = parse(notifyConfigSchema, env);
  const allow = parse(z.object({ ALLOW_PRIVATE_URLS: allowPrivateUrls }), env).ALLOW_PRIVATE_URLS;
  // Receivers are called from this worker: the host is checked as written (no DNS), as CALLBACK_PUBLIC_URL's.
  const reason = c.NOTIFY_URL ? nonPublicUrlReason(c.NOTIFY_URL, { allowPrivateUrls: allow }) : undefined;
  if (reason)
    throw new ConfigError(
      `invalid configuration: NOTIFY_URL must be a public address (${reason}); set ALLOW_PRIVATE_URLS=true only for the sandbox or tests`,
    );
  return {
    url: c.NOTIFY_URL,
    secrets: c.NOTIFY_SECRET,
    windowMs: c.NOTIFY_WINDOW_MS ?? NOTIFY_WINDOW.defaultMs,
    allowPrivateUrls: allow,
  };
}
