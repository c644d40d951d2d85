// The ReviewThenGenerate input (design: public contract) and its validation. Pure and deterministic:
// the same code runs in the workflow (first thing it does) and in the client helper (before starting).
import type { z } from 'zod';
import { assetTypeOf, planReviewBatches } from '../model/review/schemas.js';
import { isHttpUrl, nonPublicUrlReason } from '../model/url-rules.js';
import { DEFAULT_NOTIFY_EVENTS, type NotifyOptions } from '../model/notify.js';
import { fieldPath, ruleInOurWords, type ValidationIssue } from '../model/validation.js';
import { validateCreateTaskBody } from '../model/video/schemas.js';
import { DEFAULT_FAIRNESS_KEY } from '../model/priority.js';
import {
  DEFAULT_TIMING,
  JOB_PRIORITY,
  reviewOptionsSchema,
  reviewThenGenerateInputSchema,
  type InputValidation,
  type Timing,
} from './input-schema.js';

export * from './input-schema.js';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Parses each field of an object on its own, so that one bad field hides no other; unknown fields are
 * problems too. Returns the fields that passed (the caller builds the job only when nothing failed).
 */
function parseFields(
  value: unknown,
  shape: Record<string, z.ZodType>,
  at: string,
  skip: string[],
  problems: ValidationIssue[],
): Record<string, unknown> | undefined {
  const known = Object.keys(shape);
  if (!isObject(value)) {
    problems.push({ field: at || '(input)', rule: `must be an object with the fields ${known.join(', ')}` });
    return undefined;
  }
  const out: Record<string, unknown> = {};
  for (const key of known) {
    if (skip.includes(key)) continue;
    const r = shape[key]!.safeParse(value[key], { error: ruleInOurWords });
    if (r.success) out[key] = r.data;
    else
      problems.push(
        ...r.error.issues.map((i) => ({ field: fieldPath([...(at ? [at] : []), key, ...i.path]), rule: i.message })),
      );
  }
  const unknown = Object.keys(value).filter((k) => !Object.hasOwn(shape, k));
  if (unknown.length > 0) {
    problems.push({
      field: at || '(input)',
      rule: `has unknown field(s) ${unknown.map((k) => JSON.stringify(k)).join(', ')} (known: ${known.join(', ')})`,
    });
  }
  return out;
}

/** The http(s) media URLs of a create body's content, read as far as it can be (the body may be invalid). */
function mediaUrlsOfContent(task: Record<string, unknown> | undefined): string[] | undefined {
  if (!Array.isArray(task?.content)) return undefined;
  return task.content.flatMap((item: unknown) => {
    if (
      !isObject(item) ||
      typeof item.type !== 'string' ||
      !['image_url', 'video_url', 'audio_url'].includes(item.type)
    )
      return [];
    const holder = item[item.type];
    const url = isObject(holder) ? holder.url : undefined;
    return typeof url === 'string' && /^https?:\/\//i.test(url) ? [url] : [];
  });
}

const EXTENSIONS = 'image: .jpeg .jpg .png .webp .bmp .tiff .tif .gif .heic .heif; video: .mp4 .mov; audio: .wav .mp3';

/**
 * Checks everything and reports every problem at once, each naming the field and the rule: every part
 * (task body, review options and URLs, callbacks, timing, batchId) is checked on its own, so a shape error
 * in one hides nothing in another. Media URLs are held to the public rule as written (the workflow cannot
 * see a worker's ALLOW_PRIVATE_URLS).
 */
export function validateReviewThenGenerateInput(input: unknown): InputValidation {
  const problems: ValidationIssue[] = [];
  const top = parseFields(input, reviewThenGenerateInputSchema().shape, '', ['review'], problems);
  if (!top) return { ok: false, problems };

  const task = top.task as Record<string, unknown> | undefined;
  const body = task ? validateCreateTaskBody(task) : undefined;
  if (body && !body.ok) problems.push(...body.issues.map((i) => ({ field: `task.${i.field}`, rule: i.rule })));
  if (task && 'callback_url' in task) {
    problems.push({
      field: 'task.callback_url',
      rule: 'must be absent: the activity adds the signed callback address itself',
    });
  }

  const rawReview = isObject(input) ? input.review : undefined;
  const review =
    rawReview === undefined
      ? undefined
      : parseFields(rawReview, reviewOptionsSchema().shape, 'review', ['urls'], problems);
  const groupSource = review?.groupSource as string | undefined;
  if (
    review?.groupId !== undefined &&
    groupSource !== undefined &&
    groupSource !== '' &&
    groupSource !== 'real_person'
  ) {
    problems.push({
      field: 'review.groupSource',
      rule: "must be '' or 'real_person' when review.groupId is sent (spec: group_source)",
    });
  }

  // Review URLs: checked even when the task has problems; absent = the task's http(s) media URLs.
  let urls: string[] = [];
  if (review) {
    const given = isObject(rawReview) ? rawReview.urls : undefined;
    if (given !== undefined) {
      if (!Array.isArray(given))
        problems.push({ field: 'review.urls', rule: 'must be an array of public http or https URLs' });
      else if (given.length === 0)
        problems.push({
          field: 'review.urls',
          rule: "must hold at least 1 URL (or be absent: the task's media URLs are reviewed)",
        });
      else {
        given.forEach((url: unknown, i) => {
          const field = `review.urls[${i}]`;
          if (typeof url !== 'string')
            return void problems.push({ field, rule: 'must be a string (a public http or https URL)' });
          const reason = isHttpUrl(url) ? nonPublicUrlReason(url) : undefined;
          if (!isHttpUrl(url)) problems.push({ field, rule: `${url} must be a public http or https URL` });
          else if (reason) problems.push({ field, rule: `${url} must be a public http or https URL (${reason})` });
          else if (!assetTypeOf(url))
            problems.push({ field, rule: `${url} has no supported extension (${EXTENSIONS})` });
          else urls.push(url);
        });
      }
    } else {
      const derived = mediaUrlsOfContent(task);
      if (derived?.length === 0) {
        problems.push({
          field: 'review.urls',
          rule: 'nothing to review: task.content has no http(s) media URL and review.urls is absent',
        });
      }
      // Form and public rule of these URLs are the task body's checks; only the extension is the review's.
      for (const url of derived ?? []) {
        if (!assetTypeOf(url))
          problems.push({ field: 'task.content', rule: `${url} has no supported extension (${EXTENSIONS})` });
      }
      urls = derived ?? [];
    }
  }

  if (problems.length > 0 || !body?.ok || (rawReview !== undefined && review === undefined)) {
    // In the input's own order (task, review, ...), unknown fields last; the sort is stable.
    const order = Object.keys(reviewThenGenerateInputSchema().shape);
    const rank = (field: string) => {
      const i = order.indexOf(field.split(/[.[]/)[0]!);
      return i < 0 ? order.length : i;
    };
    return { ok: false, problems: problems.sort((a, b) => rank(a.field) - rank(b.field)) };
  }
  const t = top as {
    callbacks?: boolean;
    resubmitOnAmbiguity?: boolean;
    timing?: Partial<Timing>;
    batchId?: string;
    store?: boolean;
    notify?: NotifyOptions;
    priority?: number;
    fairnessKey?: string;
    onBudgetExceeded?: 'wait' | 'fail';
  };
  return {
    ok: true,
    job: {
      task: body.value,
      reviewBatches: review ? planReviewBatches(urls) : [],
      review: review
        ? {
            ...(review.groupId ? { groupId: review.groupId as string } : {}),
            ...(groupSource !== undefined ? { groupSource } : {}),
            mode: (review.mode as 'async' | 'sync' | undefined) ?? 'async',
          }
        : undefined,
      callbacks: t.callbacks ?? true,
      resubmitOnAmbiguity: t.resubmitOnAmbiguity ?? false,
      timing: { ...DEFAULT_TIMING, ...t.timing },
      batchId: t.batchId,
      priority: t.priority ?? JOB_PRIORITY.default,
      fairnessKey: t.fairnessKey ?? t.batchId ?? DEFAULT_FAIRNESS_KEY,
      onBudgetExceeded: t.onBudgetExceeded ?? 'wait',
      store: t.store ?? false,
      ...(t.notify
        ? {
            notify: {
              ...(t.notify.url !== undefined ? { url: t.notify.url } : {}),
              events: t.notify.events ?? [...DEFAULT_NOTIFY_EVENTS],
              ...(t.notify.windowMs !== undefined ? { windowMs: t.notify.windowMs } : {}),
            },
          }
        : {}),
    },
  };
}
