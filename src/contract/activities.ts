// The activities the workflows call, as signatures: what the workflows proxy (proxyActivities<...>) and
// what src/activities/ implements (each factory's return type). Names carry the `rtg` prefix so they
// cannot clash with a user's own. Types only: workflows take these, never the implementations.
import type { StoredVideo } from '../model/stored-video.js';
import type {
  GatewayCallInput,
  GatewayCallResult,
  GatewayCreateInput,
  GatewayCreateResult,
  GatewayKeepInput,
  GatewayQueryInput,
  GatewayQuotaCreateInput,
  JobsPage,
  PollInput,
  QuotaAnswer,
  ReadJobsInput,
  ReviewSubmitInput,
  ReviewSubmitOutcome,
  ReviewSyncSubmitInput,
  StoreVideoInput,
  VideoCreateInput,
  VideoCreateOutcome,
} from './activity-io.js';
import type { JobNeedsActivities } from './job-needs.js';
import type { NotifyActivities } from './notify.js';
import type { GatewayTaskSummary, ReviewTaskSummary, VideoTaskSummary } from './task-summaries.js';

/** The review and video tasks of ReviewThenGenerate (native task API). */
export interface TaskActivities {
  /** An async review submit, at most once (CreateAmbiguous when a task may exist). */
  rtgSubmitReview(input: ReviewSubmitInput): Promise<ReviewSubmitOutcome>;
  /** A sync review submit: one blocking call, at most once; the answer may still be unfinished. */
  rtgSubmitReviewSync(input: ReviewSyncSubmitInput): Promise<ReviewTaskSummary | QuotaAnswer>;
  rtgQueryReviewTask(input: PollInput): Promise<ReviewTaskSummary>;
  /** The video task's create, at most once (CreateAmbiguous when a task may exist). */
  rtgCreateVideoTask(input: VideoCreateInput): Promise<VideoCreateOutcome>;
  rtgQueryVideoTask(input: PollInput): Promise<VideoTaskSummary>;
  /** `cancelled: false` with the status when the task was already final (404 or 409). */
  rtgCancelVideoTask(input: { taskId: string }): Promise<{ cancelled: boolean; status?: number }>;
}

/** The gateway entry points: a synchronous call, and the create / query pair GenerateAndPoll uses. */
export interface GatewayActivities {
  rtgCallGateway(input: GatewayCallInput): Promise<GatewayCallResult>;
  rtgCreateGatewayTask(input: GatewayCreateInput): Promise<GatewayCreateResult>;
  /**
   * The same create inside the video quota the worker sets (VIDEO_MAX_TASKS_IN_FLIGHT...), as a
   * ReviewThenGenerate create: sent once granted; else admitted or queued (nothing sent), or refused (429).
   */
  rtgCreateGatewayTaskWithinQuota(input: GatewayQuotaCreateInput): Promise<GatewayCreateResult | QuotaAnswer>;
  rtgQueryGatewayTask(input: GatewayQueryInput): Promise<GatewayTaskSummary>;
  /**
   * Keeps the result of a succeeded task whose record names no URL (OpenAI's /v1/videos: the file is
   * served to the key at GET /v1/videos/{id}/content) in VIDEO_STORE; VideoStoreFailed without a store,
   * GenerationFailed where the entry point has no such download.
   */
  rtgKeepGatewayVideo(input: GatewayKeepInput): Promise<StoredVideo>;
}

/** Copies a finished video to VIDEO_STORE. */
export interface StoreActivities {
  rtgStoreVideo(input: StoreVideoInput): Promise<StoredVideo>;
}

/** Reads one page of a batch's jobs file. */
export interface BatchActivities {
  rtgReadJobsFile(input: ReadJobsInput): Promise<JobsPage>;
}

/** Every activity of the package: what `createActivities` builds and a worker registers. */
export interface Activities
  extends TaskActivities, GatewayActivities, StoreActivities, BatchActivities, JobNeedsActivities, NotifyActivities {}
