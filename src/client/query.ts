// List filters over our search attributes, as the Web UI's search box takes them
// (e.g. `ReviewStage="generating" AND VideoModel="video-model-1"`), and a helper that runs one.
import type { Client, WorkflowExecutionStatusName } from '@temporalio/client';
import { reviewSearchAttributesOf, type ReviewSearchAttributes } from './describe.js';

export interface ReviewJobFilter {
  /** A working stage (`reviewing`, `generating`...: running runs in it) or an outcome (`succeeded`, `failed`, `cancelled`). */
  stage?: string;
  model?: string;
  /** Runs whose ReviewTaskIds list contains this id. */
  reviewTaskId?: string;
  videoTaskId?: string;
  batchId?: string;
  /** Temporal's ExecutionStatus: Running, Completed, Failed, Canceled, Terminated, TimedOut. */
  executionStatus?: string;
}

/**
 * The outcome of a closed run is its ExecutionStatus (since 0.2.0 the search index keeps the last working
 * stage reached, so a failed run still says where it failed).
 */
const OUTCOME_STATUS: Record<string, string> = { succeeded: 'Completed', failed: 'Failed', cancelled: 'Canceled' };

function stageClauses(stage: string): string[] {
  const outcome = OUTCOME_STATUS[stage];
  if (outcome) return [`ExecutionStatus="${outcome}"`];
  return [`ReviewStage=${literal('stage', stage)}`, 'ExecutionStatus="Running"'];
}

function literal(field: string, value: string): string {
  if (/["'\\\n\r]/.test(value)) throw new Error(`${field} must not contain quotes, backslashes or line breaks`);
  return `"${value}"`;
}

/** A visibility query for ReviewThenGenerate runs matching every given field. */
export function reviewJobQuery(filter: ReviewJobFilter): string {
  const clauses = ['WorkflowType="ReviewThenGenerate"'];
  if (filter.stage !== undefined) clauses.push(...stageClauses(filter.stage));
  if (filter.model !== undefined) clauses.push(`VideoModel=${literal('model', filter.model)}`);
  if (filter.reviewTaskId !== undefined) clauses.push(`ReviewTaskIds=${literal('reviewTaskId', filter.reviewTaskId)}`);
  if (filter.videoTaskId !== undefined) clauses.push(`VideoTaskId=${literal('videoTaskId', filter.videoTaskId)}`);
  if (filter.batchId !== undefined) clauses.push(`BatchId=${literal('batchId', filter.batchId)}`);
  if (filter.executionStatus !== undefined)
    clauses.push(`ExecutionStatus=${literal('executionStatus', filter.executionStatus)}`);
  return clauses.join(' AND ');
}

export interface ListedRun {
  workflowId: string;
  runId: string;
  type: string;
  status: WorkflowExecutionStatusName;
  startTime: string;
  searchAttributes: ReviewSearchAttributes;
}

/** Runs matching a filter (or a raw visibility query), newest first, at most `limit`. */
export async function listRuns(client: Client, query: ReviewJobFilter | string, limit = 100): Promise<ListedRun[]> {
  const runs: ListedRun[] = [];
  const text = typeof query === 'string' ? query : reviewJobQuery(query);
  for await (const w of client.workflow.list({ query: text, pageSize: Math.min(limit, 1000) })) {
    runs.push({
      workflowId: w.workflowId,
      runId: w.runId,
      type: w.type,
      status: w.status.name,
      startTime: w.startTime.toISOString(),
      searchAttributes: reviewSearchAttributesOf(w.typedSearchAttributes),
    });
    if (runs.length >= limit) break;
  }
  return runs;
}
