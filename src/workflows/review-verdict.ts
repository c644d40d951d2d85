// The verdict on a finished review task (spec: continue only if the task is completed and the chosen item
// has submit_review_status 1; asset addresses only from result.items[], as Asset:// URLs). Pure.
import { reviewCancelled, reviewFailed, type RejectedItem, type ReviewTaskSummary } from '../contract/index.js';
import type { ApprovedAsset } from '../job/definitions.js';
import type { ReviewBatch } from '../job/input.js';

/** Items of a batch that did not pass: collected across batches into one ReviewRejected. */
export class ReviewItemsRejected extends Error {
  constructor(readonly items: RejectedItem[]) {
    super('review items rejected');
  }
}

/** True when the task holds exactly these source URLs (how an adopted task is matched to its batch). */
export function holdsExactly(task: ReviewTaskSummary, urls: string[]): boolean {
  const sources = new Set(task.items.map((i) => i.sourceUrl));
  const wanted = new Set(urls);
  return sources.size === wanted.size && [...wanted].every((u) => sources.has(u));
}

/** Continue only when the task is completed and every URL of the batch has submit_review_status 1. */
export function verdict(task: ReviewTaskSummary, batch: ReviewBatch): ApprovedAsset[] {
  const reviewTaskId = task.taskId ?? '';
  const evidence = { reviewTaskId, error: task.error, record: task.raw };
  if (task.status === 'cancelled') throw reviewCancelled(evidence);
  if (task.status !== 'completed') {
    throw reviewFailed(
      `review task ${reviewTaskId} ended ${task.rawStatus ?? task.status}${task.error?.message ? `: ${task.error.message}` : ''}`,
      evidence,
    );
  }
  const approved: ApprovedAsset[] = [];
  const rejected: ReviewItemsRejected['items'] = [];
  for (const url of batch.urls) {
    const item = task.items.find((i) => i.sourceUrl === url);
    if (item?.passed && item.assetUrl?.startsWith('Asset://')) {
      approved.push({ sourceUrl: url, assetUrl: item.assetUrl, assetId: item.assetId });
    } else {
      rejected.push({
        url,
        reviewTaskId,
        ...(item?.errorCode !== undefined ? { error_code: item.errorCode } : {}),
        error_message: item
          ? (item.errorMessage ?? (item.passed ? 'approved item carries no Asset:// asset_url' : 'not passed'))
          : 'no review result for this URL',
      });
    }
  }
  if (rejected.length > 0) throw new ReviewItemsRejected(rejected);
  return approved;
}
