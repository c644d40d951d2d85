// Standalone sandbox process (npm run sandbox): both services on fixed ports with fixed dev credentials,
// scriptable over /__sandbox/ and by URL/prompt hints. One line on stdout once listening.
import { startSandbox } from './index.js';
import { parseModelLimits, parseQuotaRetryAfter } from './quota-options.js';

function intEnv(name: string): number | undefined;
function intEnv(name: string, fallback: number): number;
function intEnv(name: string, fallback?: number): number | undefined {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) {
    console.error(`${name} must be a non-negative integer (got '${raw}')`);
    process.exit(2);
  }
  return n;
}

function boolEnv(name: string): boolean {
  const raw = (process.env[name] ?? '').trim().toLowerCase();
  if (raw === '' || raw === 'false' || raw === '0') return false;
  if (raw === 'true' || raw === '1') return true;
  console.error(`${name} must be true, false, 1 or 0 (got '${raw}')`);
  process.exit(2);
}

/** A value read by `parse` (which throws with the reason), or undefined when unset. */
function parsedEnv<T>(name: string, parse: (name: string, raw: string) => T): T | undefined {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return undefined;
  try {
    return parse(name, raw);
  } catch (err) {
    console.error(err instanceof Error ? err.message : String(err));
    process.exit(2);
  }
}

// The same variable as the worker's: private media and callback addresses are refused (400) unless set.
const allowPrivateUrls = boolEnv('ALLOW_PRIVATE_URLS');

const sandbox = await startSandbox({
  host: process.env.SANDBOX_HOST || '127.0.0.1',
  videoPort: intEnv('SANDBOX_VIDEO_PORT', 8081),
  reviewPort: intEnv('SANDBOX_REVIEW_PORT', 8082),
  apiKey: process.env.SANDBOX_API_KEY || 'sandbox-video-key',
  accessToken: process.env.SANDBOX_ACCESS_TOKEN || 'sandbox-review-token',
  // Optional tuning; unset = the library defaults.
  reviewDurationMs: intEnv('SANDBOX_REVIEW_DURATION_MS'),
  videoDurationMs: intEnv('SANDBOX_VIDEO_DURATION_MS'),
  latencyMs: intEnv('SANDBOX_LATENCY_MS'),
  assetUrlTtlMs: intEnv('SANDBOX_ASSET_URL_TTL_MS'),
  cancelMethod: process.env.SANDBOX_CANCEL_METHOD || undefined,
  cancelPath: process.env.SANDBOX_CANCEL_PATH || undefined,
  reviewProcessingRetryAfter: process.env.SANDBOX_REVIEW_PROCESSING_RETRY_AFTER || undefined,
  allowPrivateUrls,
  // The sandbox's real quotas (SANDBOX_ prefix: never the workers' VIDEO_MAX_... settings); unset = unlimited.
  videoMaxTasksInFlight: intEnv('SANDBOX_VIDEO_MAX_TASKS_IN_FLIGHT'),
  videoMaxTasksInFlightByModel: parsedEnv('SANDBOX_VIDEO_MAX_TASKS_IN_FLIGHT_BY_MODEL', parseModelLimits),
  videoMaxCreatesPerMinute: intEnv('SANDBOX_VIDEO_MAX_CREATES_PER_MINUTE'),
  videoMaxCreatesPerMinuteByModel: parsedEnv('SANDBOX_VIDEO_MAX_CREATES_PER_MINUTE_BY_MODEL', parseModelLimits),
  videoQuotaRetryAfter: parsedEnv('SANDBOX_VIDEO_QUOTA_RETRY_AFTER', parseQuotaRetryAfter),
  reviewMaxTasksInFlight: intEnv('SANDBOX_REVIEW_MAX_TASKS_IN_FLIGHT'),
  reviewMaxSubmitsPerMinute: intEnv('SANDBOX_REVIEW_MAX_SUBMITS_PER_MINUTE'),
  reviewQuotaRetryAfter: parsedEnv('SANDBOX_REVIEW_QUOTA_RETRY_AFTER', parseQuotaRetryAfter),
});

const privateNote = allowPrivateUrls
  ? ' (ALLOW_PRIVATE_URLS=true: loopback/private media and callback addresses accepted)'
  : '';
console.log(`sandbox listening: video ${sandbox.videoBaseUrl} review ${sandbox.reviewBaseUrl}${privateNote}`);

let stopping = false;
const shutdown = (signal: string) => {
  if (stopping) return;
  stopping = true;
  sandbox.close().then(
    () => {
      console.log(`sandbox stopped (${signal})`);
      process.exit(0);
    },
    (err: unknown) => {
      console.error(`sandbox: error while stopping on ${signal}:`, err);
      process.exit(1);
    },
  );
};
process.on('SIGINT', () => shutdown('SIGINT'));
process.on('SIGTERM', () => shutdown('SIGTERM'));
