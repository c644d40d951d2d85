// Starting a ReviewThenGenerate job from another service. The input is validated with the workflow's own
// schema first (bad input never becomes a workflow). The caller's business key is the workflow id:
// - id conflict policy FAIL + id reuse policy REJECT_DUPLICATE at the server: a key is run once, ever
//   (within the namespace's retention), whether the first run is still running or closed;
// - the helper turns the server's "already started" into the existing run's handle (`existing: true`),
//   after checking that it was started with the same input (fingerprint in the memo); a different input
//   under the same key is a BusinessKeyConflictError, and the existing run is left alone;
// - `retryFailed: true` uses ALLOW_DUPLICATE_FAILED_ONLY instead: a key whose run failed, was cancelled,
//   terminated or timed out may run again; a completed one never does.
import { WorkflowExecutionAlreadyStartedError, type Client, type WorkflowHandle } from '@temporalio/client';
import type { SearchAttributePair } from '@temporalio/common';
import { loadTemporalConfig } from '../config/temporal.js';
import { businessKeySchema } from '../job/input.js';
import { progressQuery, type Progress, type ReviewThenGenerateResult } from '../job/definitions.js';
import { validateReviewThenGenerateInput, type ReviewThenGenerateInput } from '../job/input.js';
import type { ReviewThenGenerate } from '../workflows/review-then-generate.js';
import { BatchId, ReviewStage, VideoModel } from '../contract/index.js';
import { describeRun, type RunDescription } from './describe.js';
import { BusinessKeyConflictError, InvalidJobInputError } from './errors.js';
import { inputFingerprint } from './fingerprint.js';
import { jobMetadata } from '../job/metadata.js';
import { ruleInOurWords } from '../model/validation.js';

export const JOB_WORKFLOW_TYPE = 'ReviewThenGenerate';

export interface StartJobOptions {
  /** Names the job: it becomes the workflow id. Printable, no spaces, at most 200 characters. */
  businessKey: string;
  /** The design's input; validated before anything is sent. */
  input: ReviewThenGenerateInput;
  /** Default: TEMPORAL_TASK_QUEUE, else DEFAULT_TASK_QUEUE (config.ts). */
  taskQueue?: string;
  /** Allow a new run when the key's previous run did not complete successfully. Default false. */
  retryFailed?: boolean;
  /** Start with our search attributes (default true); false on a namespace that lacks them. */
  searchAttributes?: boolean;
}

export interface ReviewJobHandle {
  workflowId: string;
  /** The run this start refers to (the first run of the key, unless `retryFailed` started a new one). */
  runId: string;
  /** True when the key was already started: this is that run, not a new job. */
  existing: boolean;
  result(): Promise<ReviewThenGenerateResult>;
  progress(): Promise<Progress>;
  /** Requests cancellation; the workflow cancels its video task if one exists. */
  cancel(): Promise<void>;
  describe(): Promise<RunDescription>;
  /** The underlying Temporal handle, for anything else (signals, history). */
  workflow: WorkflowHandle<typeof ReviewThenGenerate>;
}

export function defaultTaskQueue(): string {
  return loadTemporalConfig(process.env).taskQueue;
}

function jobHandle(client: Client, workflowId: string, runId: string, existing: boolean): ReviewJobHandle {
  // Without a run id, result() follows the key's latest run; with it, this exact run.
  const workflow = client.workflow.getHandle<typeof ReviewThenGenerate>(workflowId, runId);
  return {
    workflowId,
    runId,
    existing,
    result: () => workflow.result(),
    progress: () => workflow.query(progressQuery),
    cancel: async () => {
      await workflow.cancel();
    },
    describe: () => describeRun(client, workflowId, runId),
    workflow,
  };
}

/** A handle for a job started earlier (by anyone), by its business key. */
export async function getReviewJob(client: Client, businessKey: string): Promise<ReviewJobHandle> {
  const d = await client.workflow.getHandle(businessKey).describe();
  return jobHandle(client, businessKey, d.runId, true);
}

export async function startReviewThenGenerate(client: Client, options: StartJobOptions): Promise<ReviewJobHandle> {
  const problems = [];
  const key = businessKeySchema().safeParse(options.businessKey, { error: ruleInOurWords });
  if (!key.success) problems.push(...key.error.issues.map((i) => ({ field: 'businessKey', rule: i.message })));
  const validation = validateReviewThenGenerateInput(options.input);
  // The whole input's problems are at `(input)`: here it has a name of its own.
  const inInput = (field: string) => (field === '(input)' ? 'input' : `input.${field}`);
  if (!validation.ok) problems.push(...validation.problems.map((p) => ({ field: inInput(p.field), rule: p.rule })));
  if (problems.length > 0 || !validation.ok) throw new InvalidJobInputError(problems);

  const workflowId = options.businessKey;
  const fingerprint = inputFingerprint(options.input);
  const meta = jobMetadata(validation.job, { businessKey: workflowId, batchId: validation.job.batchId });
  const searchAttributes: SearchAttributePair[] =
    options.searchAttributes === false
      ? []
      : [
          { key: ReviewStage, value: 'reviewing' },
          { key: VideoModel, value: meta.model },
          ...(validation.job.batchId ? [{ key: BatchId, value: validation.job.batchId }] : []),
        ];
  try {
    const handle = await client.workflow.start<typeof ReviewThenGenerate>(JOB_WORKFLOW_TYPE, {
      workflowId,
      taskQueue: options.taskQueue ?? defaultTaskQueue(),
      args: [options.input],
      workflowIdConflictPolicy: 'FAIL',
      workflowIdReusePolicy: options.retryFailed ? 'ALLOW_DUPLICATE_FAILED_ONLY' : 'REJECT_DUPLICATE',
      typedSearchAttributes: searchAttributes,
      priority: meta.priority,
      staticSummary: meta.staticSummary,
      staticDetails: meta.staticDetails,
      // Nothing secret: the fingerprint of the input, so a repeated start can be checked against it.
      memo: { inputSha256: fingerprint },
    });
    return jobHandle(client, workflowId, handle.firstExecutionRunId, false);
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }

  // The key exists: hand back that run, if it is the same job.
  const existing = await client.workflow.getHandle(workflowId).describe();
  if (existing.type !== JOB_WORKFLOW_TYPE) {
    throw new BusinessKeyConflictError(workflowId, existing.runId, `by a ${existing.type} workflow`);
  }
  const recorded = existing.memo?.inputSha256;
  if (typeof recorded === 'string' && recorded !== fingerprint) {
    throw new BusinessKeyConflictError(workflowId, existing.runId, 'with a different input');
  }
  return jobHandle(client, workflowId, existing.runId, true);
}
