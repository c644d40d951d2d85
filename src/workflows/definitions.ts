// The query and the result/progress shapes of ReviewThenGenerate. Pure: shared with callers. The callback
// signals, which the receiver sends too, are in the contract (src/contract/signals.ts).
import { defineQuery } from '@temporalio/workflow';
import type { StoredVideo } from '../model/stored-video.js';

export type Stage =
  'reviewing' | 'creating' | 'generating' | 'storing' | 'cancelling' | 'succeeded' | 'failed' | 'cancelled';

export interface ReviewTaskProgress {
  taskId: string;
  assetType: string;
  urls: number;
  status: string;
  doneCount?: number;
  totalCount?: number;
}

export interface Progress {
  stage: Stage;
  review: { tasks: ReviewTaskProgress[]; batchesPlanned: number };
  taskId?: string;
  /** Last video task state seen (an unknown state is shown as received). */
  state?: string;
  queries: { review: number; video: number };
  callbacks: { review: number; video: number; ignored: number };
  lastError?: string;
  /** Tasks of this run left by an ambiguous create that was resubmitted, cancelled by the run. */
  orphanTasksCancelled?: string[];
}

export const progressQuery = defineQuery<Progress>('progress');

export interface ApprovedAsset {
  sourceUrl: string;
  assetUrl: string;
  assetId: string | undefined;
}

export interface ReviewThenGenerateResult {
  taskId: string;
  state: 'succeeded';
  videoUrl: string | undefined;
  assets: ApprovedAsset[];
  reviewTaskIds: string[];
  /** The last task record, as received (callback addresses redacted). */
  task: Record<string, unknown>;
  /** The copy in the worker's VIDEO_STORE, when the job asked for it (`store: true`). */
  stored?: StoredVideo;
}
