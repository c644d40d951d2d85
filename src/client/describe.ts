// What a run is and where it stands, in one call: the same facts the Web UI shows without opening the
// history (static summary and details, current details, search attributes), plus status and history size.
import type { Client, WorkflowExecutionStatusName } from '@temporalio/client';
import { BatchId, ReviewStage, ReviewTaskIds, VideoModel, VideoTaskId } from '../contract/index.js';

export interface ReviewSearchAttributes {
  ReviewStage?: string;
  VideoModel?: string;
  ReviewTaskIds?: string[];
  VideoTaskId?: string;
  BatchId?: string;
}

export interface RunDescription {
  workflowId: string;
  runId: string;
  type: string;
  taskQueue: string;
  status: WorkflowExecutionStatusName;
  startTime: string;
  closeTime: string | undefined;
  historyLength: number;
  historySizeBytes: number | undefined;
  staticSummary: string | undefined;
  staticDetails: string | undefined;
  /** Markdown the workflow sets at each stage (read with the built-in metadata query; needs a worker). */
  currentDetails: string | undefined;
  searchAttributes: ReviewSearchAttributes;
  memo: Record<string, unknown>;
}

export function reviewSearchAttributesOf(typed: { get: (key: never) => unknown }): ReviewSearchAttributes {
  const get = <T>(key: unknown) => typed.get(key as never) as T | undefined;
  const out: ReviewSearchAttributes = {};
  const stage = get<string>(ReviewStage);
  if (stage !== undefined) out.ReviewStage = stage;
  const model = get<string>(VideoModel);
  if (model !== undefined) out.VideoModel = model;
  const reviewIds = get<string[]>(ReviewTaskIds);
  if (reviewIds !== undefined) out.ReviewTaskIds = reviewIds;
  const taskId = get<string>(VideoTaskId);
  if (taskId !== undefined) out.VideoTaskId = taskId;
  const batchId = get<string>(BatchId);
  if (batchId !== undefined) out.BatchId = batchId;
  return out;
}

interface WorkflowMetadata {
  currentDetails?: string;
}

/** Reads current details through the built-in `__temporal_workflow_metadata` query; undefined when no worker answers. */
export async function currentDetailsOf(
  client: Client,
  workflowId: string,
  runId?: string,
): Promise<string | undefined> {
  try {
    const metadata = await client.workflow
      .getHandle(workflowId, runId)
      .query<WorkflowMetadata>('__temporal_workflow_metadata');
    return metadata?.currentDetails || undefined;
  } catch {
    return undefined;
  }
}

export async function describeRun(
  client: Client,
  workflowId: string,
  runId?: string,
  options: { currentDetails?: boolean } = {},
): Promise<RunDescription> {
  const handle = client.workflow.getHandle(workflowId, runId);
  const d = await handle.describe();
  const [staticSummary, staticDetails, currentDetails] = await Promise.all([
    d.staticSummary(),
    d.staticDetails(),
    options.currentDetails === false ? undefined : currentDetailsOf(client, workflowId, d.runId),
  ]);
  return {
    workflowId: d.workflowId,
    runId: d.runId,
    type: d.type,
    taskQueue: d.taskQueue,
    status: d.status.name,
    startTime: d.startTime.toISOString(),
    closeTime: d.closeTime?.toISOString(),
    historyLength: d.historyLength,
    historySizeBytes: d.historySize,
    staticSummary,
    staticDetails,
    currentDetails,
    searchAttributes: reviewSearchAttributesOf(d.typedSearchAttributes),
    memo: d.memo ?? {},
  };
}
