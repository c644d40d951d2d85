// The two services: base addresses, credentials (VIDEO_API_KEY, REVIEW_ACCESS_TOKEN: secrets, kept to the
// clients built from this) and the transport's settings.
import { z } from 'zod';
import { mixedBaseUrlsProblem } from './base-urls.js';
import { ConfigError, httpUrl, loadAllowPrivateUrls, nonEmpty, parse, type Env } from './env.js';
import type { ReviewServiceConfig, VideoServiceConfig } from './types.js';

/** VIDEO_CANCEL_METHOD, VIDEO_CANCEL_PATH, HTTP_TIMEOUT_MS and HTTP_MAX_CONNECTIONS (connections per service). */
export const SERVICE_DEFAULTS = {
  cancelMethod: 'POST',
  cancelPath: '/v1/task/cancel/{id}',
  timeoutMs: 30_000,
  connections: 32,
} as const;

export const servicesConfigSchema = z.object({
  VIDEO_API_BASE_URL: httpUrl,
  VIDEO_API_KEY: nonEmpty,
  REVIEW_API_BASE_URL: httpUrl,
  REVIEW_ACCESS_TOKEN: nonEmpty,
  VIDEO_CANCEL_METHOD: z.enum(['POST', 'DELETE', 'PUT', 'PATCH', 'GET']).default(SERVICE_DEFAULTS.cancelMethod),
  VIDEO_CANCEL_PATH: z
    .string()
    .default(SERVICE_DEFAULTS.cancelPath)
    .refine((p) => p.startsWith('/') && p.includes('{id}'), 'must start with / and contain {id}'),
  HTTP_TIMEOUT_MS: z.coerce.number().int().positive().default(SERVICE_DEFAULTS.timeoutMs),
  /** Connections per service (one undici Pool each): at most this many requests to one service at once. */
  HTTP_MAX_CONNECTIONS: z.coerce.number().int().min(1).max(1_024).default(SERVICE_DEFAULTS.connections),
});

export function loadServicesConfig(env: Env = process.env): { video: VideoServiceConfig; review: ReviewServiceConfig } {
  const c = parse(servicesConfigSchema, env);
  const allow = loadAllowPrivateUrls(env);
  const mixed = mixedBaseUrlsProblem(
    { field: 'VIDEO_API_BASE_URL', url: c.VIDEO_API_BASE_URL },
    { field: 'REVIEW_API_BASE_URL', url: c.REVIEW_API_BASE_URL },
  );
  if (mixed) throw new ConfigError(`invalid configuration: ${mixed}`);
  return {
    video: {
      baseUrl: c.VIDEO_API_BASE_URL,
      apiKey: c.VIDEO_API_KEY,
      cancelMethod: c.VIDEO_CANCEL_METHOD,
      cancelPath: c.VIDEO_CANCEL_PATH,
      timeoutMs: c.HTTP_TIMEOUT_MS,
      connections: c.HTTP_MAX_CONNECTIONS,
      allowPrivateUrls: allow,
    },
    review: {
      baseUrl: c.REVIEW_API_BASE_URL,
      accessToken: c.REVIEW_ACCESS_TOKEN,
      timeoutMs: c.HTTP_TIMEOUT_MS,
      connections: c.HTTP_MAX_CONNECTIONS,
      allowPrivateUrls: allow,
    },
  };
}
