// One review task as the sandbox holds it, and the rules it lives by: which states are final, what a URL
// hint scripts (`review-fail`, `review-cancel` in its path), and what a rejected item says.
import type { IssuedAsset } from './assets.js';
import { urlPathIncludes } from './context.js';
import type { ReviewOutcome, ReviewVerdict } from './types.js';
import type { AssetType } from './validation.js';

export type ReviewStatus = 'pending' | 'processing' | 'completed' | 'failed' | 'cancelled';

export interface ReviewTaskState {
  taskId: string;
  trackId: string;
  urls: string[];
  assetType: AssetType;
  callbackUrl: string | undefined;
  status: ReviewStatus;
  doneCount: number;
  outcome: ReviewOutcome;
  durationMs: number;
  createdAt: number;
  verdicts: ReviewVerdict[];
  batchId: string;
  items: Array<{ asset: IssuedAsset; verdict: ReviewVerdict }>;
  error: { code: string; message: string } | undefined;
  timer: NodeJS.Timeout | undefined;
  waiters: Array<() => void>;
}

export const REJECTED: ReviewVerdict = {
  passed: false,
  errorCode: 'CONTENT_REJECTED',
  errorMessage: 'the content did not pass review',
};

export function isFinal(status: ReviewStatus): boolean {
  return status === 'completed' || status === 'failed' || status === 'cancelled';
}

export function hintedOutcome(urls: string[]): ReviewOutcome {
  if (urls.some((u) => urlPathIncludes(u, 'review-fail'))) return 'failed';
  if (urls.some((u) => urlPathIncludes(u, 'review-cancel'))) return 'cancelled';
  return 'completed';
}
