// Starting a ReviewThenGenerateBatch: validated first (the batch's shape and every inline job, with the
// same rules as a single start), then started under the caller's batch id with the same id policies as a
// job (a repeated start returns the existing batch).
import { basename } from 'node:path';
import { WorkflowExecutionAlreadyStartedError, type Client, type WorkflowHandle } from '@temporalio/client';
import type { ValidationIssue } from '../model/validation.js';
import {
  BATCH_DEFAULTS,
  BATCH_WORKFLOW_TYPE,
  batchProgressQuery,
  parseBatchJob,
  validateBatchInput,
  type BatchProgress,
  type BatchSummary,
  type ReviewThenGenerateBatchInput,
} from '../job/batch-input.js';
import { businessKeySchema } from '../job/input.js';
import type { ReviewThenGenerateBatch } from '../workflows/batch.js';
import { BusinessKeyConflictError, InvalidJobInputError } from './errors.js';
import { defaultTaskQueue } from './start.js';

export interface StartBatchOptions {
  /** Names the batch: its workflow id, and the prefix of its jobs' ids (`<batchId>/<index>`). */
  batchId: string;
  batch: ReviewThenGenerateBatchInput;
  taskQueue?: string;
}

export interface BatchHandle {
  workflowId: string;
  existing: boolean;
  result(): Promise<BatchSummary>;
  progress(): Promise<BatchProgress>;
  /** Cancels the batch: running jobs are cancelled (each cancels its video task), no new job starts. */
  cancel(): Promise<void>;
  workflow: WorkflowHandle<typeof ReviewThenGenerateBatch>;
}

/** Every problem of a batch input, inline jobs included; empty when it may be started. */
export function batchInputProblems(batch: unknown): ValidationIssue[] {
  const shape = validateBatchInput(batch);
  if (!shape.ok) return [{ field: 'batch', rule: shape.problem }];
  if (shape.value.carry)
    return [{ field: 'batch.carry', rule: 'is set by the workflow on continue-as-new, never by callers' }];
  const problems: ValidationIssue[] = [];
  shape.value.jobs?.forEach((job, i) => {
    const parsed = parseBatchJob(job);
    if (!parsed.ok) problems.push({ field: `jobs[${i}]`, rule: parsed.problem });
  });
  return problems;
}

/** The Web UI's one-line summary and details of a batch run. */
export function batchMetadata(batch: ReviewThenGenerateBatchInput): { staticSummary: string; staticDetails: string } {
  const source = batch.jobs ? `${batch.jobs.length} inline jobs` : `jobs from ${basename(batch.jobsFile ?? '')}`;
  return {
    staticSummary: `Batch: ${source}, ${batch.concurrency ?? BATCH_DEFAULTS.concurrency} at a time`,
    staticDetails: [
      `**Jobs:** ${batch.jobs ? `${batch.jobs.length} given inline` : `JSON Lines file ${batch.jobsFile}`}`,
      `**Concurrency:** ${batch.concurrency ?? BATCH_DEFAULTS.concurrency}`,
      `**Continue-as-new:** every ${batch.continueAsNewEvery ?? BATCH_DEFAULTS.continueAsNewEvery} jobs`,
      `**Progress:** query \`batchProgress\`; jobs: \`BatchId="<this workflow id>"\``,
    ].join('\n\n'),
  };
}

export function batchHandle(client: Client, workflowId: string, existing: boolean): BatchHandle {
  // No run id: result() and queries follow the chain of continued-as-new runs to the latest.
  const workflow = client.workflow.getHandle<typeof ReviewThenGenerateBatch>(workflowId);
  return {
    workflowId,
    existing,
    result: () => workflow.result(),
    progress: () => workflow.query(batchProgressQuery),
    cancel: async () => {
      await workflow.cancel();
    },
    workflow,
  };
}

export async function startReviewThenGenerateBatch(client: Client, options: StartBatchOptions): Promise<BatchHandle> {
  const problems = batchInputProblems(options.batch);
  const key = businessKeySchema().safeParse(options.batchId);
  if (!key.success) problems.unshift(...key.error.issues.map((i) => ({ field: 'batchId', rule: i.message })));
  if (problems.length > 0) throw new InvalidJobInputError(problems, 'batch');
  try {
    await client.workflow.start<typeof ReviewThenGenerateBatch>(BATCH_WORKFLOW_TYPE, {
      workflowId: options.batchId,
      taskQueue: options.taskQueue ?? defaultTaskQueue(),
      args: [options.batch],
      workflowIdConflictPolicy: 'FAIL',
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      ...batchMetadata(options.batch),
    });
    return batchHandle(client, options.batchId, false);
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
  const existing = await client.workflow.getHandle(options.batchId).describe();
  if (existing.type !== BATCH_WORKFLOW_TYPE)
    throw new BusinessKeyConflictError(options.batchId, existing.runId, `by a ${existing.type} workflow`);
  return batchHandle(client, options.batchId, true);
}
