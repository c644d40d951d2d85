// The query and the result/progress types of ReviewThenGenerate, inferred from their zod schemas
// (src/model/job-schemas.ts, also the source of the JSON Schemas in schemas/). Pure: shared with callers. The callback
// signals, which the receiver sends too, are in the contract (src/contract/signals.ts).
import { defineQuery } from '@temporalio/workflow';
import type { z } from 'zod';
import type {
  approvedAssetSchema,
  progressSchema,
  reviewTaskProgressSchema,
  reviewThenGenerateResultSchema,
  stageSchema,
} from '../model/job-schemas.js';

export type Stage = z.infer<ReturnType<typeof stageSchema>>;

export type ReviewTaskProgress = z.infer<ReturnType<typeof reviewTaskProgressSchema>>;

export type Progress = z.infer<ReturnType<typeof progressSchema>>;

export const progressQuery = defineQuery<Progress>('progress');

export type ApprovedAsset = z.infer<ReturnType<typeof approvedAssetSchema>>;

export type ReviewThenGenerateResult = z.infer<ReturnType<typeof reviewThenGenerateResultSchema>>;
