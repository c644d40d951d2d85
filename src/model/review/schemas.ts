// Wire types of the asset review service's submit body, with the spec's rules as zod checks so that the
// schema is both the type (z.infer) and the validator. Pure: workflow code imports this module.
import { z } from 'zod';
import type { ValidationIssue } from '../validation.js';
import { asRecord } from '../lenient.js';
import { isHttpUrl, nonPublicUrlReason, type UrlOptions } from '../url-rules.js';
import { lazy } from '../lazy.js';
import { validateWith, type Validation } from '../validation.js';
import { ASSET_TYPES, EXTENSION_TABLE, MAX_URLS_PER_BATCH, assetTypeOf } from './asset-type.js';
import { publicHttpUrlSchema } from '../public-url-schema.js';

export * from './asset-type.js';
export * from './task.js';

/** 1 to 50 public media URLs with supported extensions (private hosts too with `allowPrivateUrls`). */
function buildUrlListSchema(options: UrlOptions) {
  const publicMediaUrl = z
    .string({ error: 'must be a string (a public http or https URL)' })
    .superRefine((url, ctx) => {
      if (!isHttpUrl(url)) {
        ctx.addIssue({ code: 'custom', message: 'must be a public http or https URL' });
        return;
      }
      const reason = nonPublicUrlReason(url, options);
      if (reason) ctx.addIssue({ code: 'custom', message: `must be a public http or https URL (${reason})` });
      else if (!assetTypeOf(url))
        ctx.addIssue({ code: 'custom', message: `must end with a supported extension (${EXTENSION_TABLE})` });
    });
  return z
    .array(publicMediaUrl, {
      error: (i) =>
        i.input === undefined
          ? `is required (1 to ${MAX_URLS_PER_BATCH} public http or https URLs)`
          : 'must be an array of URLs',
    })
    .min(1, 'must hold at least 1 URL')
    .max(MAX_URLS_PER_BATCH, `must hold at most ${MAX_URLS_PER_BATCH} URLs (split larger sets into several batches)`);
}
const publicUrlList = lazy(() => buildUrlListSchema({}));
const privateUrlList = lazy(() => buildUrlListSchema({ allowPrivateUrls: true }));
export const reviewUrlListSchema = (options: UrlOptions = {}) =>
  options.allowPrivateUrls ? privateUrlList() : publicUrlList();

/** Spec, media rules: one type per batch, and `asset_type` (default Image) matching that type. */
function checkBatchType(body: unknown, ctx: z.RefinementCtx): void {
  const b = asRecord(body);
  if (!b || !Array.isArray(b.images)) return;
  const types = [
    ...new Set(
      b.images.map((u) => (typeof u === 'string' ? assetTypeOf(u) : undefined)).filter((t) => t !== undefined),
    ),
  ];
  if (types.length > 1) {
    ctx.addIssue({
      code: 'custom',
      path: ['images'],
      message: `all URLs of one batch must be of one type (found ${types.join(' and ')})`,
    });
    return;
  }
  const inferred = types[0];
  const declared = b.asset_type;
  if (inferred === undefined || !(ASSET_TYPES as readonly unknown[]).includes(declared ?? 'Image')) return;
  if (declared === undefined && inferred !== 'Image') {
    ctx.addIssue({
      code: 'custom',
      path: ['asset_type'],
      message: `must be ${inferred} for these URLs (when absent the service assumes Image)`,
    });
  } else if (declared !== undefined && declared !== inferred) {
    ctx.addIssue({
      code: 'custom',
      path: ['asset_type'],
      message: `is ${String(declared)} but the URLs are ${inferred}`,
    });
  }
}

// Spec: "When group_id is sent it is empty or real_person only". Without group_id it says nothing: any string passes.
function checkGroup(body: unknown, ctx: z.RefinementCtx): void {
  const b = asRecord(body);
  if (
    b &&
    b.group_id !== undefined &&
    typeof b.group_source === 'string' &&
    b.group_source !== '' &&
    b.group_source !== 'real_person'
  ) {
    ctx.addIssue({
      code: 'custom',
      path: ['group_source'],
      message: "must be '' or 'real_person' when group_id is sent",
    });
  }
}

function buildSubmitBodySchema(options: UrlOptions) {
  return z
    .looseObject(
      {
        images: reviewUrlListSchema(options),
        /** Legacy alias of `images`; when both are sent the service uses this one. */
        asset_url_list: reviewUrlListSchema(options).optional(),
        asset_type: z.enum(ASSET_TYPES, { error: `must be one of ${ASSET_TYPES.join(', ')}` }).optional(),
        // Spec: "must be reachable from the public internet".
        callback_url: publicHttpUrlSchema(options).optional(),
        group_id: z.string({ error: 'must be a string' }).min(1, 'must be a non-empty string').optional(),
        group_source: z.string({ error: "must be a string ('' or 'real_person' when group_id is sent)" }).optional(),
      },
      { error: 'must be a JSON object' },
    )
    .superRefine(checkBatchType, { when: () => true })
    .superRefine(checkGroup, { when: () => true });
}
const publicSubmitBody = lazy(() => buildSubmitBodySchema({}));
const privateSubmitBody = lazy(() => buildSubmitBodySchema({ allowPrivateUrls: true }));
/** POST /api/asset/upload/{sync,async} body. Unknown top-level fields pass through unchanged. */
export const reviewSubmitBodySchema = (options: UrlOptions = {}) =>
  options.allowPrivateUrls ? privateSubmitBody() : publicSubmitBody();
export type ReviewSubmitBody = z.infer<ReturnType<typeof reviewSubmitBodySchema>>;

/** `images` when `asset_url_list` is sent too: an array of strings (its URLs are not used, so not checked). */
const unusedImagesSchema = lazy(() =>
  z.object({ images: z.array(z.string({ error: 'must be a string' }), { error: 'must be an array of URLs' }) }),
);

const renameImages = (issue: ValidationIssue): ValidationIssue =>
  issue.field === 'images' || issue.field.startsWith('images[')
    ? { ...issue, field: `asset_url_list${issue.field.slice('images'.length)}` }
    : issue;

/**
 * Checks a submit body against every rule of the spec; reports all problems at once.
 * `asset_url_list` is the legacy alias of `images` and the service uses it when both are sent, so when it
 * is present it is the list that is checked (issues name `asset_url_list[i]`), and the returned body carries
 * the same list in `images` too: a body with only the legacy field is accepted, and the two never disagree.
 * Media and callback URLs must be public addresses unless `allowPrivateUrls` (names are not resolved).
 */
export function validateReviewSubmitBody(body: unknown, options: UrlOptions = {}): Validation<ReviewSubmitBody> {
  const b = asRecord(body);
  if (b === undefined || b.asset_url_list === undefined) return validateWith(reviewSubmitBodySchema(options), body);
  const r = validateWith(reviewSubmitBodySchema(options), { ...b, images: b.asset_url_list });
  // `images` sent beside it is not used, but it is still a field of the body: it has the spec's type.
  const unused = b.images === undefined ? undefined : validateWith(unusedImagesSchema(), { images: b.images });
  const typeIssues = unused?.ok === false ? unused.issues : [];
  if (r.ok && typeIssues.length === 0) return r;
  // The same list sits in both fields for the check: report each problem once, under the field that was sent.
  const seen = new Set<string>();
  const issues = [...(r.ok ? [] : r.issues.map(renameImages)), ...typeIssues].filter((i) => {
    const key = `${i.field}\u0000${i.rule}`;
    return seen.has(key) ? false : (seen.add(key), true);
  });
  return { ok: false, issues };
}
