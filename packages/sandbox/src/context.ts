// What both emulated services share: clock/timers, callbacks out, the asset registry, quotas, resolved options.
import { randomBytes } from 'node:crypto';
import type { AssetRegistry } from './assets.js';
import type { CallbackDispatcher } from './callbacks.js';
import type { QuotaBook } from './quotas.js';
import type { Scheduler } from './scheduler.js';

export interface ResolvedOptions {
  host: string;
  videoPort: number;
  reviewPort: number;
  apiKey: string;
  accessToken: string;
  reviewDurationMs: number;
  videoDurationMs: number;
  latencyMs: number;
  cancelMethod: string;
  cancelPath: string;
  assetUrlTtlMs: number;
  syncReviewWaitMs: number;
  callbackTimeoutMs: number;
  reviewCompletedCode: 200 | 0;
  allowPrivateUrls: boolean;
  reviewProcessingRetryAfter: string | undefined;
  videoFileBytes: number;
  videoUrlTtlMs: number;
}

export interface ServiceContext {
  options: ResolvedOptions;
  scheduler: Scheduler;
  callbacks: CallbackDispatcher;
  assets: AssetRegistry;
  /** The quotas both services enforce on creates and submits (quotas.ts). */
  quotas: QuotaBook;
  /** Filled once both servers listen: addresses the services hand out (video files, signed URLs). */
  baseUrls: { video: string; review: string };
}

export const randomHex = (bytes: number): string => randomBytes(bytes).toString('hex');

/** The hint words are looked for in the URL path only, so a host name never triggers them. */
export function urlPathIncludes(url: string, word: string): boolean {
  try {
    return new URL(url).pathname.toLowerCase().includes(word);
  } catch {
    return url.toLowerCase().includes(word);
  }
}
