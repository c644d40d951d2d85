// The package root, for callers that start, watch or cancel ReviewThenGenerate runs: the workflow's name,
// its input and result types, the signals and query, the failure type names, and configuration helpers.
// Nothing here loads @temporalio/worker: a web service that only starts runs stays light.
export { FailureType } from './failure-types.js';
export {
  DEFAULT_TIMING,
  describeProblems,
  reviewThenGenerateInputSchema,
  timingSchema,
  validateReviewThenGenerateInput,
  type InputValidation,
  type ReviewThenGenerateInput,
  type ReviewThenGenerateJob,
  type Timing,
} from './workflows/input.js';
export {
  progressQuery,
  reviewCallbackSignal,
  videoCallbackSignal,
  type ApprovedAsset,
  type CallbackSignal,
  type Progress,
  type ReviewTaskProgress,
  type ReviewThenGenerateResult,
  type Stage,
} from './workflows/definitions.js';
export { allSearchAttributes, BatchId, ReviewStage, ReviewTaskIds, VideoModel, VideoTaskId } from './workflows/search-attributes.js';
export { workflowsPath } from './workflows-path.js';
export {
  ConfigError,
  loadCallbackConfig,
  loadServicesConfig,
  loadTemporalConfig,
  type CallbackConfig,
  type ReviewServiceConfig,
  type TemporalConfig,
  type VideoServiceConfig,
} from './config.js';
export { RequestValidationError, ServiceError, type ValidationIssue } from './services/errors.js';

/** The workflow type to start (also the exported function name in `temporal-review-video/workflows`). */
export const WORKFLOW_TYPE = 'ReviewThenGenerate';
/** The task queue of our standalone worker; in your own worker, use your own queue. */
export const DEFAULT_TASK_QUEUE = 'video-generation';
