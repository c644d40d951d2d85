// The package root, for callers that start, watch or cancel runs: the client helpers, the input and
// result types, the signals and queries, the failure type names, configuration helpers, payload
// encryption (the codec, its data converter and the codec server), and the plugin
// (which loads @temporalio/worker for types only: client-only callers still never load it).
export * from './client/index.js';
export { FailureType } from './model/failure-types.js';
export {
  DEFAULT_TIMING,
  reviewThenGenerateInputSchema,
  timingSchema,
  validateReviewThenGenerateInput,
  type InputValidation,
  type ReviewThenGenerateInput,
  type ReviewThenGenerateJob,
  type Timing,
} from './job/input.js';
export {
  progressQuery,
  type ApprovedAsset,
  type Progress,
  type ReviewTaskProgress,
  type ReviewThenGenerateResult,
  type Stage,
} from './job/definitions.js';
export {
  allSearchAttributes,
  BatchId,
  reviewCallbackSignal,
  ReviewStage,
  ReviewTaskIds,
  videoCallbackSignal,
  VideoModel,
  VideoTaskId,
  type CallbackSignal,
} from './contract/index.js';
export {
  GENERATE_AND_POLL_DEFAULT_TIMING,
  validateGenerateAndPollInput,
  type GenerateAndPollInput,
  type GenerateAndPollTiming,
} from './job/generate-and-poll-input.js';
export {
  generateAndPollProgressQuery,
  type GenerateAndPollProgress,
  type GenerateAndPollResult,
  type GenerateAndPollStage,
} from './job/generate-and-poll-definitions.js';
export { workflowPreloadModules, workflowsPath } from './workflows-path.js';
export {
  REVIEW_VIDEO_PLUGIN_NAME,
  ReviewVideoPlugin,
  type ReviewVideoHooks,
  type ReviewVideoPluginOptions,
  type ReviewVideoSource,
} from './plugin.js';
export { loadCallbackConfig } from './config/callbacks.js';
export { ConfigError } from './config/env.js';
export { loadServicesConfig } from './config/services.js';
export { DEFAULT_TASK_QUEUE, loadTemporalConfig } from './config/temporal.js';
export {
  type CallbackConfig,
  type ReviewServiceConfig,
  type TemporalConfig,
  type VideoServiceConfig,
  type WorkerDeployment,
  type WorkerTuning,
} from './config/types.js';
export { loadWorkerTuning } from './config/worker.js';
export { loadWorkerDeployment, workerDeploymentOptions } from './temporal/worker-deployment.js';
export { ServiceError } from './services/errors.js';
export { dataConverterFromEnv, encryptionDataConverter, failureConverterPath } from './codec/data-converter.js';
export { PayloadDecryptionError, PayloadEncryptionCodec } from './codec/encryption-codec.js';
export { loadPayloadKeys, parsePayloadKeys, type PayloadKey, type PayloadKeys } from './codec/keys.js';
export { startCodecServer, type CodecServer, type CodecServerOptions } from './codec/server.js';
export { RequestValidationError, type ValidationIssue } from './model/validation.js';
// Outgoing webhooks (docs/webhooks.md): check one as received, and the shapes it carries.
export {
  newNotifySecret,
  NotificationVerificationError,
  signNotification,
  verifyNotification,
  type NotificationVerificationReason,
  type NotifySecrets,
  type VerifyOptions,
} from './notify/signing.js';
export {
  notificationPayloadSchema,
  type NotificationPayload,
  type NotificationProgress,
  type NotifyEvent,
  type NotifyOptions,
} from './model/notify.js';
export { notificationProgressQuery } from './workflows/notification.js';
export { NOTIFICATION_WORKFLOW_TYPE, notificationWorkflowId } from './contract/notify.js';
