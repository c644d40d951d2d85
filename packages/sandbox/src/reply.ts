// What a service handler answers: the reply the server writes and logs, and the error envelope most paths use.
import type { Readable } from 'node:stream';
import type { QuotaRefusal } from './types.js';

export interface Reply {
  status: number;
  json?: unknown;
  /** Non-JSON answers (signed assets, video files). */
  text?: string;
  contentType?: string;
  headers?: Record<string, string>;
  /** A streamed body (video files); `headers` then carry its content-length. */
  stream?: Readable;
  /** Task created or addressed, recorded in the log. */
  taskId?: string;
  /** A quota refusal (quotas.ts), recorded in the log. */
  quota?: QuotaRefusal;
}

export function errorReply(status: number, code: string, message: string, extra?: Record<string, unknown>): Reply {
  return { status, json: { error: { code, message, ...extra } } };
}
