// What an error body says about itself, in the envelopes of the API families the video service speaks:
// OpenAI `{error:{type,code,message}}`, Anthropic `{type:'error',error:{type,message}}`, Google
// `{error:{code,status,details:[{'@type',...}]}}` and the native task API's `{error:{code,message}}`. The
// status alone misleads: OpenAI sends a billing stop as a 429 like a rate limit, and Gemini puts its wait
// in the body (google.rpc.RetryInfo) rather than in a Retry-After header. Pure.

/** What the error's type means for a retry. */
export type ProviderErrorCategory = 'billing' | 'content_policy' | 'invalid_request' | 'rate_limit' | 'overloaded';

export interface ProviderErrorType {
  category: ProviderErrorCategory;
  /** The type, code, status or reason that decided it, as the provider wrote it. */
  type: string;
}

// Values compared lower-case. Each names the family that documents it.
const CATEGORIES: Record<ProviderErrorCategory, readonly string[]> = {
  billing: [
    'insufficient_quota', // OpenAI (a 429)
    'billing_hard_limit_reached', // OpenAI
    'billing_not_active', // OpenAI
    'billing_error', // Anthropic (402)
    'billing_disabled', // Google ErrorInfo reason
    'accountoverdueerror', // BytePlus ModelArk
  ],
  content_policy: [
    'content_policy_violation', // OpenAI
    'moderation_blocked', // OpenAI images
    'content_filter', // OpenAI / Azure
  ],
  invalid_request: [
    'invalid_request_error', // OpenAI, Anthropic
    'invalid_argument', // Google
    'request_too_large', // Anthropic (413)
  ],
  rate_limit: [
    'rate_limit_exceeded', // OpenAI code
    'rate_limit_error', // Anthropic
    'requests', // OpenAI type of a request-rate limit
    'tokens', // OpenAI type of a token-rate limit
    'resource_exhausted', // Google
    'ratelimitexceeded', // BytePlus ModelArk
  ],
  overloaded: [
    'overloaded_error', // Anthropic (529)
    'serveroverloaded', // BytePlus ModelArk
    'unavailable', // Google
  ],
};

// A more specific word wins over a general one: OpenAI's content_policy_violation comes with
// type invalid_request_error, and its insufficient_quota with a 429.
const PRECEDENCE: readonly ProviderErrorCategory[] = [
  'billing',
  'content_policy',
  'invalid_request',
  'rate_limit',
  'overloaded',
];

const record = (v: unknown): Record<string, unknown> | undefined =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;

/** Every type-like word of the error: `type`, `code`, `status`, and Google's ErrorInfo `reason`s. */
function typeWords(body: unknown): string[] {
  const error = record(record(body)?.error);
  if (!error) return [];
  const words = [error.code, error.type, error.status];
  const details = Array.isArray(error.details) ? error.details : [];
  for (const d of details) words.push(record(d)?.reason);
  return words.filter((w): w is string => typeof w === 'string' && w !== '');
}

/** The category of an error body, when its type is one the families document; undefined otherwise. */
export function providerErrorType(body: unknown): ProviderErrorType | undefined {
  const words = typeWords(body);
  for (const category of PRECEDENCE) {
    const type = words.find((w) => CATEGORIES[category].includes(w.toLowerCase()));
    if (type !== undefined) return { category, type };
  }
  return undefined;
}

/** google.rpc.RetryInfo's `retryDelay` (a protobuf Duration in JSON: `"31s"`, `"0.5s"`), in ms. */
export function bodyRetryDelayMs(body: unknown): number | undefined {
  const details = record(record(body)?.error)?.details;
  if (!Array.isArray(details)) return undefined;
  for (const d of details) {
    const info = record(d);
    if (info?.['@type'] !== 'type.googleapis.com/google.rpc.RetryInfo') continue;
    const m = typeof info.retryDelay === 'string' ? /^(\d+(?:\.\d+)?)s$/.exec(info.retryDelay.trim()) : null;
    if (m) return Math.round(Number(m[1]) * 1000);
  }
  return undefined;
}
