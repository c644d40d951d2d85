// What a ReviewThenGenerate run answers, as zod schemas (design: public contract): its result, its
// `progress` query answer and the details of each public failure type. They are the single source of
// those shapes: the TypeScript types are inferred from them (src/job/definitions.ts,
// src/contract/failures.ts) and the JSON Schemas shipped in `schemas/` are generated from them
// (src/job/json-schemas.ts), for callers in other languages. Nothing parses a run's answers with
// them at run time. Pure: workflow code imports the types, and the schemas are built lazily (lazy.ts).
import { z } from 'zod';
import { FailureType } from './failure-types.js';
import { lazy } from './lazy.js';
import { notifyEventSchema } from './notify-events.js';
import { storedVideoSchema } from './stored-video.js';

/**
 * A value or `undefined`: a key the TypeScript type always has, whose value may be undefined. On the
 * wire (JSON) such a key is absent, so the generated JSON Schema does not require it.
 */
export const orUndefined = <T extends z.ZodType>(schema: T) => z.union([schema, z.undefined()]);

// ---- Result ------------------------------------------------------------------------------------------

export const approvedAssetSchema = lazy(() =>
  z.object({
    sourceUrl: z.string(),
    assetUrl: z.string(),
    assetId: orUndefined(z.string()),
  }),
);

export const reviewThenGenerateResultSchema = lazy(() =>
  z
    .object({
      taskId: z.string(),
      state: z.literal('succeeded'),
      videoUrl: orUndefined(z.string()),
      assets: z.array(approvedAssetSchema()),
      reviewTaskIds: z.array(z.string()),
      task: z
        .record(z.string(), z.unknown())
        .describe('The last task record, as received (callback addresses redacted).'),
      stored: storedVideoSchema()
        .optional()
        .describe("The copy in the worker's VIDEO_STORE, when the job asked for it (`store: true`)."),
    })
    .describe('The result of a ReviewThenGenerate run that succeeded.'),
);

// ---- Progress (the `progress` query) -----------------------------------------------------------------

export const stageSchema = lazy(() =>
  z.enum([
    'reviewing',
    'waiting_for_quota',
    'creating',
    'generating',
    'storing',
    'cancelling',
    'succeeded',
    'failed',
    'cancelled',
  ]),
);

export const reviewTaskProgressSchema = lazy(() =>
  z.object({
    taskId: z.string(),
    assetType: z.string(),
    urls: z.number().int(),
    status: z.string(),
    doneCount: z.number().int().optional(),
    totalCount: z.number().int().optional(),
  }),
);

/** One notification of a job (docs/webhooks.md): the delivery workflow to ask for its attempts. */
export const jobNotificationSchema = lazy(() =>
  z.object({
    event: notifyEventSchema(),
    stage: stageSchema().optional().describe('The stage a `stage` notification announces.'),
    workflowId: z
      .string()
      .describe(
        'The delivery workflow (ReviewThenGenerateNotification), also the webhook-id; its `progress` has the attempts.',
      ),
    state: z.enum(['scheduled', 'not scheduled']),
    error: z.string().optional().describe('Why it was not scheduled.'),
  }),
);
export type JobNotification = z.infer<ReturnType<typeof jobNotificationSchema>>;

const counts = <K extends string>(keys: readonly K[]) =>
  z.object(Object.fromEntries(keys.map((k) => [k, z.number().int()])) as { [P in K]: z.ZodNumber });

export const progressSchema = lazy(() =>
  z
    .object({
      stage: stageSchema(),
      review: z.object({ tasks: z.array(reviewTaskProgressSchema()), batchesPlanned: z.number().int() }),
      taskId: z.string().optional(),
      state: z.string().optional().describe('Last video task state seen (an unknown state is shown as received).'),
      queries: counts(['review', 'video']),
      callbacks: counts(['review', 'video', 'ignored']),
      lastError: z.string().optional(),
      admission: z
        .object({
          quotaKey: z.string(),
          requestId: z.string(),
          waitingSince: z.number().describe('When the job began to wait for a slot (ms since the epoch).'),
          admittedAt: z.number().optional().describe('When the slot was granted; absent while it waits.'),
          refusals: z
            .number()
            .int()
            .describe('Submits and creates the providers refused for their quota (429) after a grant, this run.'),
        })
        .optional()
        .describe(
          "Where the worker limits the providers' tasks in flight: the slot of this job's latest task to ask (a review batch or the video create; admitted at once, admittedAt equals waitingSince). Its position is the gate's slotPosition query (review-video status shows it).",
        ),
      orphanTasksCancelled: z
        .array(z.string())
        .optional()
        .describe('Tasks of this run left by an ambiguous create that was resubmitted, cancelled by the run.'),
      notifications: z
        .array(jobNotificationSchema())
        .optional()
        .describe('The notifications (webhooks) scheduled so far: docs/webhooks.md.'),
    })
    .describe('The answer of the `progress` query of a ReviewThenGenerate run.'),
);

// ---- Failure details (details[0] of an ApplicationFailure of a public FailureType) -------------------

const taskErrorSchema = lazy(() =>
  orUndefined(z.object({ code: z.string().optional(), message: z.string().optional() })),
);

/** What a service answered, as a failure's evidence: never a header or a secret. */
export const serviceEvidenceSchema = lazy(() =>
  z
    .object({
      operation: z.string(),
      status: orUndefined(z.number().int()),
      kind: z.string(),
      ambiguous: z.boolean(),
      retryAfterMs: orUndefined(z.number()),
      body: z.unknown(),
    })
    .describe('What a service answered (never a header or a secret).'),
);

/** A review task that ended without passing. */
export const reviewTaskEvidenceSchema = lazy(() =>
  z
    .object({ reviewTaskId: z.string(), error: taskErrorSchema(), record: z.record(z.string(), z.unknown()) })
    .describe('A review task that ended without passing.'),
);

/** A video task that ended without a video. */
export const videoTaskEvidenceSchema = lazy(() =>
  z
    .object({ taskId: z.string(), error: taskErrorSchema(), record: z.record(z.string(), z.unknown()) })
    .describe('A video task that ended without a video.'),
);

/** A task of a gateway entry point (GenerateAndPoll) that ended without a result. */
export const gatewayTaskEvidenceSchema = lazy(() =>
  z
    .object({
      entryPoint: z.string(),
      taskId: z.string(),
      state: orUndefined(z.string()),
      error: taskErrorSchema(),
      record: z.unknown(),
    })
    .describe('A task of a gateway entry point (GenerateAndPoll) that ended without a result.'),
);

/** An item of a review batch that did not pass (ReviewRejected lists them across batches). */
export const rejectedItemSchema = lazy(() =>
  z.object({
    url: z.string(),
    error_code: z.string().optional(),
    error_message: z.string().optional(),
    reviewTaskId: z.string(),
  }),
);

const generationEvidence = () => z.union([videoTaskEvidenceSchema(), gatewayTaskEvidenceSchema()]);

/** The details (the first, and for a public failure the only meaningful, element) of each public failure type. */
export const failureDetailsSchemas = lazy(() => ({
  [FailureType.InvalidInput]: z.union([
    z
      .object({ problems: z.array(z.unknown()) })
      .describe('The input broke the rules: each problem names a field and the rule ({ field, rule }).'),
    z.object({ endpoint: z.string(), entryPoint: z.string() }),
    serviceEvidenceSchema(),
  ]),
  [FailureType.ReviewRejected]: z.object({ items: z.array(rejectedItemSchema()) }),
  [FailureType.ReviewFailed]: z.union([reviewTaskEvidenceSchema(), serviceEvidenceSchema()]),
  [FailureType.ReviewCancelled]: reviewTaskEvidenceSchema(),
  [FailureType.ReviewTimedOut]: z.object({ reviewTaskId: z.string() }),
  [FailureType.VideoRequestRejected]: serviceEvidenceSchema(),
  [FailureType.Unauthorized]: serviceEvidenceSchema(),
  [FailureType.GenerationFailed]: z.union([generationEvidence(), serviceEvidenceSchema()]),
  [FailureType.GenerationCancelled]: generationEvidence(),
  [FailureType.GenerationExpired]: generationEvidence(),
  [FailureType.GenerationTimedOut]: z.object({ taskId: z.string() }),
  [FailureType.SubmitUnconfirmed]: z
    .record(z.string(), z.unknown())
    .describe(
      'What was sent and what happened: the stage and the requests (e.g. callbackSent, lastError, createRequests).',
    ),
  [FailureType.VideoStoreFailed]: z
    .object({ taskId: z.string() })
    .catchall(z.unknown())
    .describe('The task whose video could not be stored, with what was tried (e.g. status, videoUrl, lastError).'),
  [FailureType.AdmissionTimedOut]: z
    .object({ quotaKey: z.string(), waitedMs: z.number() })
    .describe('The quota key the job waited for, and how long; no task was created.'),
  [FailureType.BudgetExceeded]: z
    .object({ quotaKey: z.string(), fairnessKey: z.string() })
    .describe('The quota and the tenant whose daily budget is spent; no task was created.'),
}));
