// The ReviewThenGenerate input (design: public contract) and its validation. Pure and deterministic:
// the same code runs in the workflow (first thing it does) and in the client helper (before starting).
import { z } from 'zod';
import { lazy } from '../services/lazy.js';
import type { ValidationIssue } from '../services/errors.js';
import { mediaUrlsOf, validateCreateTaskBody, type CreateTaskBody } from '../services/video/schemas.js';
import { assetTypeOf, planReviewBatches } from '../services/review/schemas.js';

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

export type Timing = { -readonly [K in keyof typeof DEFAULT_TIMING]: number };

const ms = (min: number) => z.number().int().min(min).max(30 * 24 * 3_600_000);

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
      groupSource: z.enum(['', 'real_person']).optional(),
      /** `async` (default): submit, then callback or polling. `sync`: one blocking call per batch. */
      mode: z.enum(['async', 'sync']).optional(),
    })
    .strict(),
);

export const reviewThenGenerateInputSchema = lazy(() =>
  z
    .object({
      /** The spec's create body (snake_case wire names) without `callback_url`. */
      task: z.record(z.string(), z.unknown()),
      review: reviewOptionsSchema().optional(),
      callbacks: z.boolean().optional(),
      timing: timingSchema().optional(),
      /** Set by ReviewThenGenerateBatch on its children; shown as the BatchId search attribute. */
      batchId: z.string().min(1).max(200).optional(),
    })
    .strict(),
);

export type ReviewThenGenerateInput = z.input<ReturnType<typeof reviewThenGenerateInputSchema>>;

/** A validated input with every default applied and the review plan worked out. */
export interface ReviewThenGenerateJob {
  task: CreateTaskBody;
  reviewBatches: ReviewBatch[];
  review: { groupId?: string; groupSource?: '' | 'real_person'; mode: 'async' | 'sync' } | undefined;
  callbacks: boolean;
  timing: Timing;
  batchId: string | undefined;
}

export type InputValidation = { ok: true; job: ReviewThenGenerateJob } | { ok: false; problems: ValidationIssue[] };

/** Checks everything and reports every problem at once, each naming the field and the rule. */
export function validateReviewThenGenerateInput(input: unknown): InputValidation {
  const parsed = reviewThenGenerateInputSchema().safeParse(input);
  if (!parsed.success) {
    return {
      ok: false,
      problems: parsed.error.issues.map((i) => ({ field: i.path.map(String).join('.') || '(input)', rule: i.message })),
    };
  }
  const { task, review, callbacks, timing, batchId } = parsed.data;
  const problems: ValidationIssue[] = [];

  const body = validateCreateTaskBody(task);
  if (!body.ok) problems.push(...body.issues.map((i) => ({ field: `task.${i.field}`, rule: i.rule })));
  if ('callback_url' in task) {
    problems.push({ field: 'task.callback_url', rule: 'must be absent: the activity adds the signed callback address itself' });
  }
  if (review?.groupSource !== undefined && review.groupSource !== '' && !review.groupId) {
    problems.push({ field: 'review.groupSource', rule: 'is only allowed together with review.groupId' });
  }

  let reviewBatches: ReviewBatch[] = [];
  if (review && body.ok) {
    const urls = review.urls ?? mediaUrlsOf(body.value).map((m) => m.url).filter((u) => /^https?:\/\//i.test(u));
    if (urls.length === 0) {
      problems.push({ field: 'review.urls', rule: 'nothing to review: task.content has no http(s) media URL and review.urls is absent' });
    }
    urls.forEach((url, i) => {
      const field = review.urls ? `review.urls[${i}]` : 'task.content';
      if (!/^https?:\/\//i.test(url)) problems.push({ field, rule: `${url} must be a public http or https URL` });
      else if (!assetTypeOf(url)) {
        problems.push({ field, rule: `${url} has no supported extension (image: .jpeg .jpg .png .webp .bmp .tiff .tif .gif .heic .heif; video: .mp4 .mov; audio: .wav .mp3)` });
      }
    });
    if (problems.length === 0) reviewBatches = planReviewBatches(urls);
  }

  if (problems.length > 0 || !body.ok) return { ok: false, problems };
  return {
    ok: true,
    job: {
      task: body.value,
      reviewBatches,
      review: review
        ? { ...(review.groupId ? { groupId: review.groupId } : {}), ...(review.groupSource !== undefined ? { groupSource: review.groupSource } : {}), mode: review.mode ?? 'async' }
        : undefined,
      callbacks: callbacks ?? true,
      timing: { ...DEFAULT_TIMING, ...timing },
      batchId,
    },
  };
}

export function describeProblems(problems: ValidationIssue[]): string {
  return problems.map((p) => `${p.field}: ${p.rule}`).join('; ');
}
