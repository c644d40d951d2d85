// Outgoing webhooks of a job (issue 27, docs/webhooks.md), as zod schemas: what a job asks for (`notify`),
// the body each notification carries, and how a delivery is shown (the job's `progress`, the delivery
// workflow's own `progress`). The single source of these shapes: the TypeScript types are inferred from
// them and the JSON Schemas in `schemas/` are generated from them (src/job/json-schemas.ts). Pure.
import { z } from 'zod';
import { approvedAssetSchema, orUndefined, stageSchema } from './job-schemas.js';
import { lazy } from './lazy.js';
import { notifyEventSchema } from './notify-events.js';
import { storedVideoSchema } from './stored-video.js';

/** How long a notification is retried at most (NOTIFY_WINDOW_MS, `notify.windowMs`): bounds and default. */
export const NOTIFY_WINDOW = { minMs: 1_000, maxMs: 30 * 24 * 3_600_000, defaultMs: 24 * 3_600_000 } as const;

/** The job input's `notify`. The URL's public-address rule is the worker's (ALLOW_PRIVATE_URLS). */
export const notifyOptionsSchema = lazy(() =>
  z
    .object({
      url: z
        .string({ error: 'must be a public http(s) URL' })
        .regex(/^https?:\/\/\S+$/i, 'must be a public http(s) URL')
        .optional()
        .describe("Where the notifications are POSTed (a public address); absent: the worker's NOTIFY_URL."),
      events: z
        .array(notifyEventSchema())
        .min(1)
        .refine((e) => new Set(e).size === e.length, 'must not repeat an event')
        .optional()
        .describe("Absent: succeeded, failed and cancelled. 'stage': every change of the working stage too."),
      windowMs: z
        .number()
        .int()
        .min(NOTIFY_WINDOW.minMs)
        .max(NOTIFY_WINDOW.maxMs)
        .optional()
        .describe("How long a notification is retried before it is given up; absent: the worker's NOTIFY_WINDOW_MS."),
    })
    .strict(),
);
export type NotifyOptions = z.infer<ReturnType<typeof notifyOptionsSchema>>;

/** What a job that succeeded tells: its result without the raw task record. */
export const notificationResultSchema = lazy(() =>
  z.object({
    taskId: z.string(),
    state: z.literal('succeeded'),
    videoUrl: orUndefined(z.string()),
    stored: storedVideoSchema().optional(),
    assets: z.array(approvedAssetSchema()),
  }),
);

/** What a job that failed or was cancelled tells: its failure's type, message and details. */
export const notificationFailureSchema = lazy(() =>
  z.object({
    type: z.string().describe('The public failure type (docs/job.md), or CancelledFailure.'),
    message: z.string(),
    details: z.array(z.unknown()),
  }),
);

/** The body of every notification (Standard Webhooks: `type`, `timestamp`, `data`). */
export const notificationPayloadSchema = lazy(() =>
  z
    .object({
      type: z.enum(['job.succeeded', 'job.failed', 'job.cancelled', 'job.stage']),
      timestamp: z.string().describe('When the event happened (workflow time), ISO 8601.'),
      data: z.object({
        event: notifyEventSchema(),
        workflowId: z.string(),
        businessKey: z.string().describe("The job's business key: its workflow id (docs/starting-jobs.md)."),
        runId: z.string(),
        batchId: z.string().optional(),
        stage: stageSchema(),
        taskId: z.string().optional().describe('The video task, once created.'),
        result: notificationResultSchema().optional().describe('Only in job.succeeded.'),
        failure: notificationFailureSchema().optional().describe('Only in job.failed and job.cancelled.'),
      }),
    })
    .describe(
      'The JSON body of a notification (webhook) of a ReviewThenGenerate job; its webhook-id is the id of the workflow that delivers it.',
    ),
);
export type NotificationPayload = z.infer<ReturnType<typeof notificationPayloadSchema>>;

/** The answer of the delivery workflow's `progress` query. */
export const notificationProgressSchema = lazy(() =>
  z
    .object({
      event: notifyEventSchema(),
      webhookId: z.string(),
      jobWorkflowId: z.string(),
      state: z.enum(['delivering', 'delivered', 'failed', 'refused']),
      attempts: z.number().int().describe('Attempts made, known when the delivery ended.'),
      status: z.number().int().optional().describe("The receiver's HTTP status of the last attempt."),
      lastError: z.string().optional(),
      deliveredAt: z.string().optional(),
      windowMs: z.number().int(),
    })
    .describe('The answer of the `progress` query of a ReviewThenGenerateNotification run (one delivery).'),
);
export type NotificationProgress = z.infer<ReturnType<typeof notificationProgressSchema>>;

export { DEFAULT_NOTIFY_EVENTS, NOTIFY_EVENTS, notifyEventSchema, type NotifyEvent } from './notify-events.js';
export type { JobNotification } from './job-schemas.js';
