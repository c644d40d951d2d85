// What the Temporal Web UI shows of a run without opening its history: current details (markdown) at
// each stage, and search attributes for list filters such as `ReviewStage="generating"`.
import { setCurrentDetails, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import type { Progress, Stage } from '../job/definitions.js';
import type { ReviewThenGenerateJob } from '../job/input.js';
import { BatchId, ReviewStage, ReviewTaskIds, VideoModel, VideoTaskId } from '../contract/index.js';

/**
 * Search attributes are upserted only when the run was started with `ReviewStage` set (our client
 * helper, CLI and batch workflow do): upserting an attribute the namespace does not know would fail every
 * workflow task, so a run started by hand on a namespace without them still works, just unindexed.
 */
function searchAttributesEnabled(): boolean {
  return workflowInfo().typedSearchAttributes.get(ReviewStage) !== undefined;
}

/** The current details: cost nothing (metadata of the workflow task), so they follow every change. */
export function showProgress(job: ReviewThenGenerateJob, p: Progress): void {
  const lines = [
    `**Stage:** ${p.stage}`,
    `**Model:** ${String(job.task.model)}`,
    p.review.tasks.length > 0
      ? `**Review:** ${p.review.tasks.map((t) => `${t.taskId || '(submitting)'} ${t.status}${t.totalCount !== undefined ? ` ${t.doneCount ?? 0}/${t.totalCount}` : ''}`).join(', ')}`
      : job.reviewBatches.length > 0
        ? `**Review:** ${job.reviewBatches.length} batch(es) planned`
        : '**Review:** none',
    p.admission
      ? `**Quota:** ${p.admission.admittedAt ? 'admitted' : 'waiting for a slot'} of ${p.admission.quotaKey}${p.admission.refusals ? `, ${p.admission.refusals} refusal(s)` : ''}`
      : undefined,
    p.taskId ? `**Video task:** ${p.taskId}${p.state ? ` (${p.state})` : ''}` : undefined,
    `**Calls:** review queries ${p.queries.review}, video queries ${p.queries.video}; callbacks review ${p.callbacks.review}, video ${p.callbacks.video}`,
    p.lastError ? `**Last error:** ${p.lastError.slice(0, 300)}` : undefined,
  ];
  setCurrentDetails(lines.filter((l) => l !== undefined).join('\n\n'));
}

/**
 * Stages users filter on; the short ones in between (`creating`, `cancelling`) are shown in the current
 * details only. Each upsert is a history event and a billable action, so the index changes once per
 * stage, carrying the task ids known by then.
 */
export const INDEXED_STAGES = new Set<Stage>(['reviewing', 'waiting_for_quota', 'generating']);

/**
 * The index follows the working stages only. `reviewing` is skipped when the start already set it (our
 * helpers do), and the outcome is not written: a closed run keeps the stage it reached, and
 * ExecutionStatus (Completed, Failed, Canceled) says how it ended. RunState calls it once per indexed stage.
 */
export function indexStage(job: ReviewThenGenerateJob, p: Progress): void {
  if (!searchAttributesEnabled()) return;
  if (p.stage === 'succeeded' || p.stage === 'failed' || p.stage === 'cancelled') return;
  if (p.stage === 'reviewing' && workflowInfo().typedSearchAttributes.get(ReviewStage) === 'reviewing') return;
  const reviewIds = p.review.tasks.map((t) => t.taskId).filter((id) => id !== '');
  upsertSearchAttributes([
    { key: ReviewStage, value: p.stage },
    { key: VideoModel, value: String(job.task.model) },
    ...(reviewIds.length > 0 ? [{ key: ReviewTaskIds, value: reviewIds }] : []),
    ...(p.taskId ? [{ key: VideoTaskId, value: p.taskId }] : []),
    ...(job.batchId ? [{ key: BatchId, value: job.batchId }] : []),
  ]);
}
