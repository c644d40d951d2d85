// Helpers for services that start, watch and cancel ReviewThenGenerate jobs and batches, and schedule
// batches. They take the caller's Client; nothing here loads @temporalio/worker.
export { BusinessKeyConflictError, InvalidJobInputError } from './errors.js';
export {
  defaultTaskQueue,
  getReviewJob,
  JOB_WORKFLOW_TYPE,
  startReviewThenGenerate,
  type ReviewJobHandle,
  type StartJobOptions,
} from './start.js';
export {
  batchHandle,
  batchInputProblems,
  startReviewThenGenerateBatch,
  type BatchHandle,
  type StartBatchOptions,
} from './batch.js';
export {
  batchScheduleWorkflowId,
  createBatchSchedule,
  deleteBatchSchedule,
  describeBatchSchedule,
  listBatchSchedules,
  type BatchScheduleInfo,
  type BatchScheduleOptions,
} from './schedule.js';
export { currentDetailsOf, describeRun, type ReviewSearchAttributes, type RunDescription } from './describe.js';
export { listRuns, reviewJobQuery, type ListedRun, type ReviewJobFilter } from './query.js';
export { jobMetadata, type JobMetadata } from '../job/metadata.js';
export { inputFingerprint } from './fingerprint.js';
export {
  BATCH_DEFAULTS,
  BATCH_WORKFLOW_TYPE,
  batchProgressQuery,
  type BatchJobOutcome,
  type BatchJobStatus,
  type BatchProgress,
  type BatchSummary,
  type ReviewThenGenerateBatchInput,
} from '../job/batch-input.js';
