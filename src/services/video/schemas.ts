// Wire types of the video generation service's native task API, with the spec's rules as zod checks so
// that the schema is both the type (z.infer) and the validator. Pure: workflow code imports this module.
import { z } from 'zod';
import { isAssetUrl, isBase64Media, isHttpUrl } from '../url-rules.js';
import { lazy } from '../lazy.js';
import { validateWith, type Validation } from '../validation.js';

export * from './task.js';

export const MEDIA_TYPES = ['image_url', 'video_url', 'audio_url'] as const;
export type MediaType = (typeof MEDIA_TYPES)[number];
export const CONTENT_TYPES = ['text', ...MEDIA_TYPES] as const;
export const CONTENT_ROLES = ['reference_image', 'first_frame', 'last_frame', 'reference_video', 'reference_audio'] as const;
export type ContentRole = (typeof CONTENT_ROLES)[number];

/** The content item type each known role belongs to. */
const ROLE_TYPE: Record<ContentRole, MediaType> = {
  reference_image: 'image_url',
  first_frame: 'image_url',
  last_frame: 'image_url',
  reference_video: 'video_url',
  reference_audio: 'audio_url',
};

const isKnownRole = (v: unknown): v is ContentRole => (CONTENT_ROLES as readonly unknown[]).includes(v);

function roleRule(input: unknown): string {
  return isKnownRole(input)
    ? `role ${input} is only allowed on ${ROLE_TYPE[input]} items`
    : `must be one of ${CONTENT_ROLES.join(', ')}`;
}

const stringError = (what: string) => ({
  error: (i: { input: unknown }) => (i.input === undefined ? `is required (${what})` : `must be a string (${what})`),
});

// A missing `image_url` object is reported at its `url`, the field the caller has to fill in.
const mediaRef = lazy(() => {
  const mediaUrl = z.string(stringError('an http(s) URL or an Asset:// address')).superRefine((v, ctx) => {
    if (v.trim() === '') ctx.addIssue({ code: 'custom', message: 'is required (an http(s) URL or an Asset:// address)' });
    else if (isBase64Media(v)) {
      ctx.addIssue({ code: 'custom', message: 'base64 media is not supported: upload the file and pass its public http(s) URL or an Asset:// address' });
    } else if (!isHttpUrl(v) && !isAssetUrl(v)) {
      ctx.addIssue({ code: 'custom', message: 'must be a public http(s) URL or an Asset:// address' });
    }
  });
  return z.preprocess((v) => (v === undefined ? {} : v), z.looseObject({ url: mediaUrl }, { error: 'must be an object { url }' }));
});

export const contentItemSchema = lazy(() =>
  z.discriminatedUnion(
    'type',
    [
      z.looseObject({
        type: z.literal('text'),
        text: z.string(stringError('the prompt')).refine((t) => t.trim() !== '', 'must be a non-empty prompt'),
        role: z.never({ error: (i) => roleRule(i.input) }).optional(),
      }),
      z.looseObject({
        type: z.literal('image_url'),
        image_url: mediaRef(),
        role: z.enum(['reference_image', 'first_frame', 'last_frame'], { error: (i) => roleRule(i.input) }).optional(),
      }),
      z.looseObject({
        type: z.literal('video_url'),
        video_url: mediaRef(),
        role: z.enum(['reference_video'], { error: (i) => roleRule(i.input) }).optional(),
      }),
      z.looseObject({
        type: z.literal('audio_url'),
        audio_url: mediaRef(),
        role: z.enum(['reference_audio'], { error: (i) => roleRule(i.input) }).optional(),
      }),
    ],
    {
      error: (i) => {
        if (i.code !== 'invalid_union') return 'must be an object with a type';
        const type = (i.input as { type?: unknown } | undefined)?.type;
        const types = CONTENT_TYPES.join(', ');
        return type === undefined ? `is required (one of ${types})` : `must be one of ${types}`;
      },
    },
  ),
);
export type ContentItem = z.infer<ReturnType<typeof contentItemSchema>>;

/** Spec, material rule 4: first/last-frame requests carry both frames as image_url items and a text item. */
function checkFirstLastFrame(body: unknown, ctx: z.RefinementCtx): void {
  const content = (body as { content?: unknown } | null)?.content;
  if (!Array.isArray(content)) return;
  const items = content.filter((c): c is Record<string, unknown> => typeof c === 'object' && c !== null);
  const usesFrames = items.some((c) => c.role === 'first_frame' || c.role === 'last_frame');
  if (!usesFrames) return;
  for (const role of ['first_frame', 'last_frame']) {
    if (!items.some((c) => c.type === 'image_url' && c.role === role)) {
      ctx.addIssue({ code: 'custom', path: ['content'], message: `a first/last-frame request needs an image_url item with role ${role}` });
    }
  }
  if (!items.some((c) => c.type === 'text')) {
    ctx.addIssue({ code: 'custom', path: ['content'], message: 'a first/last-frame request needs a text item (the prompt)' });
  }
}

/** POST /v1/task/create body. Unknown top-level fields pass through unchanged. */
export const createTaskBodySchema = lazy(() =>
  z
    .looseObject(
      {
        model: z.string(stringError('the model name')).refine((m) => m.trim() !== '', 'must be a non-empty model name'),
        content: z
          .array(contentItemSchema(), {
            error: (i) => (i.input === undefined ? 'is required (a non-empty array of content items)' : 'must be an array of content items'),
          })
          .min(1, 'must be a non-empty array of content items'),
        generate_audio: z.boolean({ error: 'must be a boolean' }).optional(),
        ratio: z
          .string({ error: 'must be a string of the form <w>:<h>' })
          .regex(/^[1-9]\d*:[1-9]\d*$/, 'must have the form <w>:<h> with positive integers, e.g. 16:9')
          .optional(),
        duration: z
          .number({ error: 'must be a positive number of seconds' })
          .positive('must be a positive number of seconds')
          .optional(),
        watermark: z.boolean({ error: 'must be a boolean' }).optional(),
        callback_url: z.string({ error: 'must be an http(s) URL' }).refine(isHttpUrl, 'must be an http(s) URL').optional(),
        resolution: z
          .string({ error: 'must be a string of the form <number>p' })
          .regex(/^[1-9]\d*p$/, 'must have the form <number>p, e.g. 720p')
          .optional(),
        seed: z.number({ error: 'must be an integer' }).int('must be an integer').optional(),
      },
      { error: 'must be a JSON object' },
    )
    .superRefine(checkFirstLastFrame, { when: () => true }),
);
export type CreateTaskBody = z.infer<ReturnType<typeof createTaskBodySchema>>;

/** Checks a create body against every rule of the spec; reports all problems at once. */
export function validateCreateTaskBody(body: unknown): Validation<CreateTaskBody> {
  return validateWith(createTaskBodySchema(), body);
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
