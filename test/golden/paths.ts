// The paths a release records as golden histories (`npm run record-golden`, docs/upgrading.md): one history
// per path, in test/golden/histories/<package version>/<path>.json. The replay test holds the current
// version's folder to this list, so a path added here (or a failure type added to the model) must be
// recorded before the suite passes again.
import { FailureType } from '../../src/model/failure-types.js';

export interface GoldenPath {
  workflowType: 'ReviewThenGenerate' | 'ReviewThenGenerateBatch' | 'GenerateAndPoll' | 'ReviewThenGenerateNotification';
  /** How the run ends: `completed`, `cancelled`, `continued-as-new`, or the FailureType it fails with. */
  ends: 'completed' | 'cancelled' | 'continued-as-new' | FailureType;
  what: string;
}

export const GOLDEN_PATHS = {
  callbacks: { workflowType: 'ReviewThenGenerate', ends: 'completed', what: 'review and video by callback' },
  polling: { workflowType: 'ReviewThenGenerate', ends: 'completed', what: 'callbacks: false, several polls' },
  'sync-review': { workflowType: 'ReviewThenGenerate', ends: 'completed', what: 'review.mode sync' },
  store: { workflowType: 'ReviewThenGenerate', ends: 'completed', what: 'store: true, copied to the file store' },
  'failure-invalid-input': { workflowType: 'ReviewThenGenerate', ends: 'InvalidInput', what: 'bad input' },
  'failure-review-rejected': { workflowType: 'ReviewThenGenerate', ends: 'ReviewRejected', what: 'item rejected' },
  'failure-review-failed': { workflowType: 'ReviewThenGenerate', ends: 'ReviewFailed', what: 'review task failed' },
  'failure-review-cancelled': {
    workflowType: 'ReviewThenGenerate',
    ends: 'ReviewCancelled',
    what: 'review task cancelled (polling)',
  },
  'failure-review-timed-out': { workflowType: 'ReviewThenGenerate', ends: 'ReviewTimedOut', what: 'review too slow' },
  'failure-video-request-rejected': {
    workflowType: 'ReviewThenGenerate',
    ends: 'VideoRequestRejected',
    what: 'create answered 400',
  },
  'failure-unauthorized': { workflowType: 'ReviewThenGenerate', ends: 'Unauthorized', what: 'create answered 401' },
  'failure-generation-failed': { workflowType: 'ReviewThenGenerate', ends: 'GenerationFailed', what: 'video failed' },
  'failure-generation-cancelled': {
    workflowType: 'ReviewThenGenerate',
    ends: 'GenerationCancelled',
    what: 'video task cancelled by the service',
  },
  'failure-generation-expired': {
    workflowType: 'ReviewThenGenerate',
    ends: 'GenerationExpired',
    what: 'video task expired',
  },
  'failure-generation-timed-out': {
    workflowType: 'ReviewThenGenerate',
    ends: 'GenerationTimedOut',
    what: 'video too slow',
  },
  'failure-submit-unconfirmed-review': {
    workflowType: 'ReviewThenGenerate',
    ends: 'SubmitUnconfirmed',
    what: 'review submit 500 before commit, no callback',
  },
  'failure-submit-unconfirmed-create': {
    workflowType: 'ReviewThenGenerate',
    ends: 'SubmitUnconfirmed',
    what: 'create 500 before commit, no callback',
  },
  'failure-video-store-failed': {
    workflowType: 'ReviewThenGenerate',
    ends: 'VideoStoreFailed',
    what: 'video address stays expired',
  },
  'cancel-reviewing': { workflowType: 'ReviewThenGenerate', ends: 'cancelled', what: 'cancelled while reviewing' },
  'cancel-generating': {
    workflowType: 'ReviewThenGenerate',
    ends: 'cancelled',
    what: 'cancelled while generating (video task cancelled)',
  },
  'review-submit-ambiguous-adopted': {
    workflowType: 'ReviewThenGenerate',
    ends: 'completed',
    what: 'review submit 500 after commit, task adopted from its callback',
  },
  'create-ambiguous-adopted': {
    workflowType: 'ReviewThenGenerate',
    ends: 'completed',
    what: 'create 500 after commit, task adopted from its callback',
  },
  'create-resubmitted': {
    workflowType: 'ReviewThenGenerate',
    ends: 'completed',
    what: 'resubmitOnAmbiguity: create 500 before commit, sent again after the grace',
  },
  'batch-continued-as-new': {
    workflowType: 'ReviewThenGenerateBatch',
    ends: 'continued-as-new',
    what: 'first run of a batch with continueAsNewEvery 1',
  },
  'batch-final-run': {
    workflowType: 'ReviewThenGenerateBatch',
    ends: 'completed',
    what: 'last run of that batch, started from the carried state',
  },
  'generate-and-poll': { workflowType: 'GenerateAndPoll', ends: 'completed', what: 'unified video entry point' },
  notified: {
    workflowType: 'ReviewThenGenerate',
    ends: 'completed',
    what: 'notify: its URL checked at the start, a notification child started at the outcome',
  },
  notification: {
    workflowType: 'ReviewThenGenerateNotification',
    ends: 'completed',
    what: 'that job notification, delivered on the second attempt',
  },
  'quota-refused-then-admitted': {
    workflowType: 'ReviewThenGenerate',
    ends: 'completed',
    what: 'a model with a quota: queued, granted, refused (429), granted again once another task ended',
  },
  'quota-admitted-at-once': {
    workflowType: 'ReviewThenGenerate',
    ends: 'completed',
    what: "a model with a quota and a free slot: granted in the ask's answer, created by the next attempt",
  },
  'review-quota-waited': {
    workflowType: 'ReviewThenGenerate',
    ends: 'completed',
    what: "a review quota of 1: the submit waits while another job's review holds the slot, then is granted",
  },
  'failure-admission-timed-out': {
    workflowType: 'ReviewThenGenerate',
    ends: 'AdmissionTimedOut',
    what: 'no slot of the quota within timing.admissionTimeoutMs',
  },
  'failure-budget-exceeded': {
    workflowType: 'ReviewThenGenerate',
    ends: 'BudgetExceeded',
    what: "the tenant's daily budget spent, onBudgetExceeded: fail",
  },
} as const satisfies Record<string, GoldenPath>;

export type GoldenPathName = keyof typeof GOLDEN_PATHS;
export const GOLDEN_PATH_NAMES = Object.keys(GOLDEN_PATHS) as GoldenPathName[];

/** Every public failure type must be the end of at least one path. */
export const FAILURE_TYPES_COVERED = new Set<string>(Object.values(GOLDEN_PATHS).map((p) => p.ends));
export const ALL_FAILURE_TYPES = Object.values(FailureType);

/** One golden history file: the form Worker.runReplayHistories takes ({ workflowId, history }), plus labels. */
export interface GoldenHistoryFile {
  path: string;
  workflowType: string;
  workflowId: string;
  recorded: { packageVersion: string; temporalServer: string };
  /** The history as protobufjs writes it (`History.toJSON()`); read it with fromGoldenJson (history-file.ts). */
  history: { events: unknown[] };
}
