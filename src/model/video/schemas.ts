// Wire types of the video generation service's native task API, with the spec's rules as zod checks so
// that the schema is both the type (z.infer) and the validator. Pure: workflow code imports this module.
import { z } from 'zod';
import { isAssetUrl, isBase64Media, isHttpUrl, nonPublicUrlReason, type UrlOptions } from '../url-rules.js';
import { lazy } from '../lazy.js';
import { validateWith, type Validation } from '../validation.js';
import { publicHttpUrlSchema } from '../public-url-schema.js';

export * from './task.js';

export const MEDIA_TYPES = ['image_url', 'video_url', 'audio_url'] as const;
export type MediaType = (typeof MEDIA_TYPES)[number];
export const CONTENT_TYPES = ['text', ...MEDIA_TYPES] as const;
/** The spec's known roles: other values pass through (the spec lists known values, not a closed set). */
export const CONTENT_ROLES = [
  'reference_image',
  'first_frame',
  'last_frame',
  'reference_video',
  'reference_audio',
] as const;
export type ContentRole = (typeof CONTENT_ROLES)[number];

const stringError = (what: string) => ({
  error: (i: { input: unknown }) => (i.input === undefined ? `is required (${what})` : `must be a string (${what})`),
});

// Any string: the spec gives known values and no rule tying a role to an item type.
const roleSchema = lazy(() =>
  z.string({ error: `must be a string (e.g. one of ${CONTENT_ROLES.join(', ')})` }).optional(),
);

// A missing `image_url` object is reported at its `url`, the field the caller has to fill in.
function mediaRef(options: UrlOptions) {
  const mediaUrl = z.string(stringError('an http(s) URL or an Asset:// address')).superRefine((v, ctx) => {
    if (v.trim() === '')
      ctx.addIssue({ code: 'custom', message: 'is required (an http(s) URL or an Asset:// address)' });
    else if (isBase64Media(v)) {
      ctx.addIssue({
        code: 'custom',
        message:
          'base64 media is not supported: upload the file and pass its public http(s) URL or an Asset:// address',
      });
    } else if (isHttpUrl(v)) {
      const reason = nonPublicUrlReason(v, options);
      if (reason)
        ctx.addIssue({ code: 'custom', message: `must be a public http(s) URL or an Asset:// address (${reason})` });
    } else if (!isAssetUrl(v)) {
      ctx.addIssue({ code: 'custom', message: 'must be a public http(s) URL or an Asset:// address' });
    }
  });
  return z.preprocess(
    (v) => (v === undefined ? {} : v),
    z.looseObject({ url: mediaUrl }, { error: 'must be an object { url }' }),
  );
}

function buildContentItemSchema(options: UrlOptions) {
  return z.discriminatedUnion(
    'type',
    [
      z.looseObject({
        type: z.literal('text'),
        text: z.string(stringError('the prompt')).refine((t) => t.trim() !== '', 'must be a non-empty prompt'),
        role: roleSchema(),
      }),
      z.looseObject({ type: z.literal('image_url'), image_url: mediaRef(options), role: roleSchema() }),
      z.looseObject({ type: z.literal('video_url'), video_url: mediaRef(options), role: roleSchema() }),
      z.looseObject({ type: z.literal('audio_url'), audio_url: mediaRef(options), role: roleSchema() }),
    ],
    {
      error: (i) => {
        if (i.code !== 'invalid_union') return 'must be an object with a type';
        const type = (i.input as { type?: unknown } | undefined)?.type;
        const types = CONTENT_TYPES.join(', ');
        return type === undefined ? `is required (one of ${types})` : `must be one of ${types}`;
      },
    },
  );
}
const publicContentItem = lazy(() => buildContentItemSchema({}));
const privateContentItem = lazy(() => buildContentItemSchema({ allowPrivateUrls: true }));
export const contentItemSchema = (options: UrlOptions = {}) =>
  options.allowPrivateUrls ? privateContentItem() : publicContentItem();
export type ContentItem = z.infer<ReturnType<typeof contentItemSchema>>;

/**
 * Spec, material rule 4: a first-frame and last-frame request uses two image_url items (roles first_frame
 * and last_frame) and a text item. A last_frame makes the request one; a first_frame alone does not (the
 * spec does not forbid a first-frame request).
 */
function checkFirstLastFrame(body: unknown, ctx: z.RefinementCtx): void {
  const content = (body as { content?: unknown } | null)?.content;
  if (!Array.isArray(content)) return;
  const items = content.filter((c): c is Record<string, unknown> => typeof c === 'object' && c !== null);
  if (!items.some((c) => c.role === 'last_frame')) return;
  for (const role of ['first_frame', 'last_frame']) {
    const withRole = items.filter((c) => c.role === role);
    if (!withRole.some((c) => c.type === 'image_url')) {
      ctx.addIssue({
        code: 'custom',
        path: ['content'],
        message: `a first/last-frame request needs an image_url item with role ${role}`,
      });
    } else if (withRole.length > 1) {
      ctx.addIssue({
        code: 'custom',
        path: ['content'],
        message: `a first/last-frame request has exactly one item with role ${role} (found ${withRole.length})`,
      });
    }
  }
  if (!items.some((c) => c.type === 'text')) {
    ctx.addIssue({
      code: 'custom',
      path: ['content'],
      message: 'a first/last-frame request needs a text item (the prompt)',
    });
  }
}

const RATIO_FORM = /^(?:\d+(?:\.\d+)?:\d+(?:\.\d+)?|[A-Za-z][A-Za-z0-9_-]*)$/;
/** `<w>:<h>` with positive numbers, or one keyword token such as `adaptive` (passed through). */
const isRatio = (r: string) => RATIO_FORM.test(r) && (!r.includes(':') || r.split(':').every((n) => Number(n) > 0));

/** A copy of an object without its null-valued members; anything else as given. */
function withoutNulls(v: unknown): unknown {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return v;
  return Object.fromEntries(Object.entries(v).filter(([, x]) => x !== null));
}

/**
 * The Ark SDK (the public API whose task body this is) sends every option it was not given as `null`, so
 * the service reads `null` as unset: the body's and each content item's null members are dropped before
 * the rules apply (a null `model` or `content` is then reported as missing) and are not sent.
 */
function nullsUnset(body: unknown): unknown {
  const b = withoutNulls(body);
  if (b === body || !Array.isArray((b as { content?: unknown }).content)) return b;
  const c = b as { content: unknown[] };
  return { ...c, content: c.content.map(withoutNulls) };
}

function buildCreateTaskBodySchema(options: UrlOptions) {
  return z.preprocess(nullsUnset, buildCreateTaskBodyRules(options));
}

function buildCreateTaskBodyRules(options: UrlOptions) {
  return z
    .looseObject(
      {
        model: z.string(stringError('the model name')).refine((m) => m.trim() !== '', 'must be a non-empty model name'),
        content: z
          .array(contentItemSchema(options), {
            error: (i) =>
              i.input === undefined
                ? 'is required (a non-empty array of content items)'
                : 'must be an array of content items',
          })
          .min(1, 'must be a non-empty array of content items'),
        generate_audio: z.boolean({ error: 'must be a boolean' }).optional(),
        ratio: z
          .string({ error: 'must be a string of the form <w>:<h>' })
          .refine(
            isRatio,
            'must have the form <w>:<h> with positive numbers (e.g. 16:9) or be one keyword (e.g. adaptive)',
          )
          .optional(),
        duration: z
          .number({ error: 'must be a positive number of seconds' })
          .positive('must be a positive number of seconds')
          .optional(),
        watermark: z.boolean({ error: 'must be a boolean' }).optional(),
        callback_url: publicHttpUrlSchema(options).optional(),
        // The spec gives `<number>p` "for example": any non-empty string passes (1080P, 4k, ...).
        resolution: z
          .string({ error: 'must be a string, e.g. 720p' })
          .refine((r) => r.trim() !== '', 'must be a non-empty string, e.g. 720p')
          .optional(),
        seed: z.number({ error: 'must be an integer' }).int('must be an integer').optional(),
      },
      { error: 'must be a JSON object' },
    )
    .superRefine(checkFirstLastFrame, { when: () => true });
}
const publicCreateBody = lazy(() => buildCreateTaskBodySchema({}));
const privateCreateBody = lazy(() => buildCreateTaskBodySchema({ allowPrivateUrls: true }));
/** POST /v1/task/create body. Unknown top-level fields pass through unchanged. */
export const createTaskBodySchema = (options: UrlOptions = {}) =>
  options.allowPrivateUrls ? privateCreateBody() : publicCreateBody();
export type CreateTaskBody = z.infer<ReturnType<typeof createTaskBodySchema>>;
/** The create body's rules once nulls are dropped: its `shape` is the fields a caller writes. */
export type CreateTaskBodyRules = ReturnType<typeof buildCreateTaskBodyRules>;

/**
 * Checks a create body against every rule of the spec; reports all problems at once. Media and callback
 * URLs must be public addresses unless `allowPrivateUrls` (names are not resolved: see url-rules.ts).
 */
export function validateCreateTaskBody(body: unknown, options: UrlOptions = {}): Validation<CreateTaskBody> {
  return validateWith(createTaskBodySchema(options), body);
}

/** The media URLs of a create body, with the index of their content item. */
export function mediaUrlsOf(body: CreateTaskBody): Array<{ index: number; type: MediaType; url: string }> {
  const out: Array<{ index: number; type: MediaType; url: string }> = [];
  body.content.forEach((item, index) => {
    if (item.type === 'image_url') out.push({ index, type: item.type, url: item.image_url.url });
    else if (item.type === 'video_url') out.push({ index, type: item.type, url: item.video_url.url });
    else if (item.type === 'audio_url') out.push({ index, type: item.type, url: item.audio_url.url });
  });
  return out;
}

/** POST /v1/task/create response: `{ id }`; other members are kept. */
export const createTaskResponseSchema = lazy(() => z.looseObject({ id: z.string().min(1) }));
