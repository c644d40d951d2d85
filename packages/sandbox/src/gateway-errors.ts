// Each API family's error envelope on its own paths, as its official SDK parses it: the sandbox makes its
// errors as `{error:{code,message,...}}` (errorReply) and this turns them into OpenAI's
// `{error:{message,type,param,code}}`, Anthropic's `{type:"error",error:{type,message}}` or Google's
// `{error:{code:<int>,message,status}}`. The vendor task APIs keep the plain shape.
import type { Reply } from './reply.js';

export type ApiFamily = 'openai' | 'anthropic' | 'google' | 'plain';

export function familyOf(pathname: string): ApiFamily {
  if (pathname === '/v1/messages') return 'anthropic';
  if (pathname.startsWith('/v1beta/')) return 'google';
  if (/^\/v1\/(?:chat\/completions|responses|images\/|videos(?:\/|$))/.test(pathname)) return 'openai';
  return 'plain';
}

const OPENAI_TYPE: Record<number, string> = { 401: 'invalid_request_error', 429: 'requests', 500: 'server_error' };
const OPENAI_CODE: Record<string, string> = { unauthorized: 'invalid_api_key' };
const ANTHROPIC_TYPE: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  529: 'overloaded_error',
};
const GOOGLE_STATUS: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  405: 'INVALID_ARGUMENT',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

interface PlainError {
  code: string;
  message: string;
  issues?: Array<{ field: string }>;
}

function plainError(json: unknown): PlainError | undefined {
  const e = (json as { error?: unknown } | undefined)?.error as Record<string, unknown> | undefined;
  if (typeof e !== 'object' || e === null) return undefined;
  // Already in a family's shape (a fault rule's own body): left as it is.
  if (typeof e.code !== 'string' || typeof e.message !== 'string' || 'type' in e || 'status' in e) return undefined;
  return e as unknown as PlainError;
}

/** The reply with its error body in the envelope of the path's family; other replies unchanged. */
export function familyErrorReply(pathname: string, reply: Reply): Reply {
  const family = familyOf(pathname);
  const e = reply.status >= 400 ? plainError(reply.json) : undefined;
  if (family === 'plain' || e === undefined) return reply;
  const { code, message, ...extra } = e;
  const body = reply.json as Record<string, unknown>;
  switch (family) {
    case 'openai': {
      const type = OPENAI_TYPE[reply.status] ?? (reply.status >= 500 ? 'server_error' : 'invalid_request_error');
      const param = e.issues?.[0]?.field ?? null;
      const openaiCode =
        reply.status === 429 && code === 'http_429' ? 'rate_limit_exceeded' : (OPENAI_CODE[code] ?? code);
      return { ...reply, json: { ...body, error: { message, type, param, code: openaiCode, ...extra } } };
    }
    case 'anthropic': {
      const type = ANTHROPIC_TYPE[reply.status] ?? (reply.status >= 500 ? 'api_error' : 'invalid_request_error');
      // request_id: non-optional in the SDK's ErrorResponse; the sandbox has no request ids.
      return { ...reply, json: { ...body, type: 'error', error: { type, message }, request_id: null } };
    }
    case 'google': {
      const status = GOOGLE_STATUS[reply.status] ?? (reply.status >= 500 ? 'INTERNAL' : 'FAILED_PRECONDITION');
      return { ...reply, json: { ...body, error: { code: reply.status, message, status, ...extra } } };
    }
  }
}
