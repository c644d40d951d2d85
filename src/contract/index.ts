// The contract between the two sides of a run, imported by both: the workflows (src/workflows/) on one
// side; the activities (src/activities/) and the callback receiver (src/callbacks/) on the other. The
// workflows import nothing from activities/, the receiver nothing from workflows/: what they share is
// here (test/architecture.test.ts holds it). Pure: it is bundled into the workflow sandbox.
export type { Activities, BatchActivities, GatewayActivities, StoreActivities, TaskActivities } from './activities.js';
export type {
  AdmissionAsk,
  CallbackSent,
  GatewayCallInput,
  GatewayCallResult,
  GatewayCreateInput,
  GatewayCreateResult,
  GatewayKeepInput,
  GatewayQueryInput,
  GatewayQuotaCreateInput,
  HeldQuotaSlot,
  HeldSlotRef,
  JobLine,
  JobsPage,
  PollInput,
  QuotaAnswer,
  QuotaWait,
  ReadJobsInput,
  ReviewSubmitInput,
  ReviewSubmitOutcome,
  ReviewSyncSubmitInput,
  StoreVideoInput,
  VideoCreateInput,
  VideoCreateOutcome,
} from './activity-io.js';
export { LONGEST_IN_ATTEMPT_WAIT_MS, queryBackoffMs } from './activity-io.js';
export type { GatewayTaskSummary, QueryOutcome, ReviewTaskSummary, VideoTaskSummary } from './task-summaries.js';
export type { JobNeeds, JobNeedsActivities, JobNeedsAnswer } from './job-needs.js';
export { reviewCallbackSignal, videoCallbackSignal, type CallbackSignal } from './signals.js';
export {
  allSearchAttributes,
  BatchId,
  ReviewStage,
  ReviewTaskIds,
  VideoModel,
  VideoTaskId,
} from './search-attributes.js';
// Which task states are final: written once each, in the wire model, and shared through here.
export { FINAL_REVIEW_STATUSES, isFinalReviewStatus, WORKING_REVIEW_STATUSES } from '../model/review/task.js';
export { FINAL_VIDEO_STATUSES, isFinalVideoStatus, WORKING_VIDEO_STATUSES } from '../model/video/task.js';
// Every ApplicationFailure the package raises, one constructor per failure type.
export * from './failures.js';
// The admission gate (one workflow per quota key): its messages, types and workflow id.
export * from './admission.js';
