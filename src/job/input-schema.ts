// The ReviewThenGenerate input (design: public contract): its schemas, defaults and types. Pure: the
// workflow validates its input with them (input.ts) and so does the client helper before starting.
import { z } from 'zod';
import { lazy } from '../model/lazy.js';
import { DEFAULT_PRIORITY } from '../model/priority.js';
import { notifyOptionsSchema, type NotifyEvent } from '../model/notify.js';
import type { ValidationIssue } from '../model/validation.js';
import type { CreateTaskBody, CreateTaskBodyRules } from '../model/video/schemas.js';
import type { planReviewBatches } from '../model/review/schemas.js';

export type ReviewBatch = ReturnType<typeof planReviewBatches>[number];

export const DEFAULT_TIMING = {
  /** Review queries are never closer than this, whatever a Retry-After says. */
  reviewMinQueryIntervalMs: 2_000,
  videoPollIntervalMs: 10_000,
  reviewTimeoutMs: 1_800_000,
  generationTimeoutMs: 7_200_000,
  /** After an ambiguous create (500 / time-out): how long to wait for a callback naming the task. */
  createAmbiguityGraceMs: 60_000,
  /** With callbacks on: how long to wait for one before polling, and the polling cadence from then on. */
  callbackFallbackPollMs: 60_000,
  /** Start-to-close time-out of one attempt of one HTTP-calling activity (also how soon a lost worker's attempt is retried). */
  callTimeoutMs: 120_000,
} as const;

export type Timing = { -readonly [K in keyof typeof DEFAULT_TIMING]: number } & {
  /** Where the provider's quota is limited: the longest wait for a slot before AdmissionTimedOut (none: no limit). */
  admissionTimeoutMs?: number;
};

/** Priorities run from 1 (highest) to 5 (Temporal's default range); a job without one is 3. */
export const JOB_PRIORITY = { min: 1, max: 5, default: DEFAULT_PRIORITY } as const;

/** One rule for every way a priority misses, naming the range. */
const PRIORITY_RULE = `must be an integer from ${JOB_PRIORITY.min} (highest) to ${JOB_PRIORITY.max}`;

const ms = (min: number) =>
  z
    .number()
    .int()
    .min(min)
    .max(30 * 24 * 3_600_000);

export const timingSchema = lazy(() =>
  z
    .object({
      reviewMinQueryIntervalMs: ms(100),
      videoPollIntervalMs: ms(100),
      reviewTimeoutMs: ms(1_000),
      generationTimeoutMs: ms(1_000),
      createAmbiguityGraceMs: ms(0),
      callbackFallbackPollMs: ms(100),
      callTimeoutMs: ms(1_000),
      admissionTimeoutMs: ms(1_000),
    })
    .partial()
    .strict(),
);

export const reviewOptionsSchema = lazy(() =>
  z
    .object({
      /** URLs to review; absent = every http(s) media URL of `task.content`. */
      urls: z.array(z.string()).min(1).optional(),
      groupId: z.string().min(1).optional(),
      /** Any string; '' or 'real_person' when groupId is sent (spec: group_source). */
      groupSource: z.string().optional(),
      /** `async` (default): submit, then callback or polling. `sync`: one blocking call per batch. */
      mode: z.enum(['async', 'sync']).optional(),
    })
    .strict(),
);

export const reviewThenGenerateInputSchema = lazy(() =>
  z
    .object({
      /** The spec's create body (snake_case wire names) without `callback_url`. */
      task: z.record(z.string(), z.unknown(), {
        error: (i) =>
          i.input === undefined
            ? 'is required (the create body: model, content, ...)'
            : 'must be an object (the create body)',
      }),
      review: reviewOptionsSchema().optional(),
      callbacks: z.boolean().optional(),
      /** Opt-in: after an ambiguous submit that nothing confirmed, send it again (may duplicate a task). */
      resubmitOnAmbiguity: z.boolean().optional(),
      timing: timingSchema().optional(),
      /** Opt-in: copy the finished video to the worker's VIDEO_STORE; the result then carries `stored`. */
      store: z.boolean().optional(),
      /** Opt-in: signed webhooks when the job ends (docs/webhooks.md), to `notify.url` or the worker's NOTIFY_URL. */
      notify: notifyOptionsSchema().optional(),
      /** Set by ReviewThenGenerateBatch on its children; shown as the BatchId search attribute. */
      batchId: z.string().min(1).max(200).optional(),
      /** 1 (highest) to 5: the order in which waiting jobs get the provider's slots, and Temporal's task priority. */
      priority: z
        .number({ error: PRIORITY_RULE })
        .int(PRIORITY_RULE)
        .min(JOB_PRIORITY.min, PRIORITY_RULE)
        .max(JOB_PRIORITY.max, PRIORITY_RULE)
        .optional(),
      /** The tenant: jobs waiting for slots are served across tenants in turn (default: the batch id, or `default`). */
      fairnessKey: z
        .string()
        .min(1)
        .max(64)
        .regex(/^[^\s\p{C}]+$/u, 'must be printable characters without spaces')
        .optional(),
      /** When the tenant's daily budget is spent: wait for the next day (default), or fail BudgetExceeded. */
      onBudgetExceeded: z.enum(['wait', 'fail']).optional(),
    })
    .strict(),
);

/**
 * A business key: the workflow id of one job, so a repeated start finds the first run. Printable, no
 * whitespace, at most 200 characters (Temporal allows 1000; the batch appends a suffix to batch ids).
 */
export const businessKeySchema = lazy(() =>
  z
    .string()
    .min(1)
    .max(200)
    .regex(/^[^\s\p{C}]+$/u, 'must be printable characters without spaces'),
);

/**
 * `task` as a caller writes it: the create body's fields, inferred from its zod schema (createTaskBodySchema),
 * without `callback_url` (the activity adds it). Closed: a misspelt or unknown field fails type-checking
 * (validation still passes unknown fields through to the service, as the spec's body allows).
 */
export type JobTask = Omit<z.input<z.ZodObject<CreateTaskBodyRules['shape']>>, 'callback_url'>;

/** The input a caller sends: `task` is the create body's type, the rest as the input schema reads it. */
export type ReviewThenGenerateInput = Omit<z.input<ReturnType<typeof reviewThenGenerateInputSchema>>, 'task'> & {
  task: JobTask;
};

/** A validated input with every default applied and the review plan worked out. */
export interface ReviewThenGenerateJob {
  task: CreateTaskBody;
  reviewBatches: ReviewBatch[];
  review: { groupId?: string; groupSource?: string; mode: 'async' | 'sync' } | undefined;
  callbacks: boolean;
  resubmitOnAmbiguity: boolean;
  timing: Timing;
  batchId: string | undefined;
  /** 1 (highest) to 5; 3 when the input has none. */
  priority: number;
  /** The input's, else the batch id, else `default`. */
  fairnessKey: string;
  onBudgetExceeded: 'wait' | 'fail';
  store: boolean;
  /** `notify` with its defaults (no `url`: the worker's NOTIFY_URL); absent: the job sends no notification. */
  notify?: { url?: string; events: NotifyEvent[]; windowMs?: number };
}

export type InputValidation = { ok: true; job: ReviewThenGenerateJob } | { ok: false; problems: ValidationIssue[] };
