// Optional checks of the bodies of the gateway entry points. The spec does not show their shapes, so the
// only rule always applied is "a JSON object"; where the public API of the same path is well known, a
// schema of its minimal fields (the ones every such request needs) can be asked for with
// `{ checkWellKnown: true }`. Unknown members are always kept. Pure: workflow code imports this module.
import { z } from 'zod';
import { lazy } from '../lazy.js';
import { validateWith, type Validation, type ValidationIssue } from '../validation.js';
import type { GatewayEndpointName } from './gateway-endpoints.js';

const text = (what: string) =>
  z
    .string({ error: (i) => (i.input === undefined ? `is required (${what})` : `must be a string (${what})`) })
    .refine((s) => s.trim() !== '', `must not be empty (${what})`);

const list = (what: string, item: z.ZodType = z.unknown()) =>
  z
    .array(item, { error: (i) => (i.input === undefined ? `is required (${what})` : `must be an array (${what})`) })
    .min(1, `must hold at least one entry (${what})`);

/** POST /v1/chat/completions: `model` and a non-empty `messages` list whose entries carry a `role`. */
export const chatCompletionsSchema = lazy(() =>
  z.looseObject({
    model: text('the model name'),
    messages: list('the conversation', z.looseObject({ role: text('the author role') })),
  }),
);

/** POST /v1/responses: `model`; `input` is a string or a list when present. */
export const responsesSchema = lazy(() =>
  z.looseObject({
    model: text('the model name'),
    input: z
      .union([z.string(), z.array(z.unknown())], { error: 'must be a string or an array (the input)' })
      .optional(),
  }),
);

/** POST /v1/messages: `model`, a positive integer `max_tokens`, and `messages` of user/assistant turns. */
export const messagesSchema = lazy(() =>
  z.looseObject({
    model: text('the model name'),
    max_tokens: z
      .number({ error: (i) => (i.input === undefined ? 'is required (the output token limit)' : 'must be a number') })
      .int('must be an integer')
      .positive('must be positive'),
    messages: list(
      'the conversation',
      z.looseObject({
        role: z.enum(['user', 'assistant'], { error: 'must be user or assistant' }),
        content: z.union([z.string(), z.array(z.unknown())], {
          error: 'must be a string or an array of content blocks',
        }),
      }),
    ),
  }),
);

/** POST /v1beta/models/{model}:generateContent (text and image models): `contents` with `parts`. */
export const generateContentSchema = lazy(() =>
  z.looseObject({
    contents: list('the conversation contents', z.looseObject({ parts: list('the parts of one content') })),
  }),
);

/** POST /v1/images/generations: a non-empty `prompt`. */
export const imagesGenerationsSchema = lazy(() =>
  z.looseObject({
    prompt: text('the image description'),
    model: z.string({ error: 'must be a string' }).optional(),
    n: z.number({ error: 'must be a number' }).int('must be an integer').positive('must be positive').optional(),
  }),
);

/**
 * POST /v1/images/edits (JSON form; FormData is checked by field names): a non-empty `prompt` and the
 * images to edit, as `image`, or as OpenAI's published JSON body has them, `images: [{ image_url }]`.
 */
export const imagesEditsSchema = lazy(() =>
  z
    .looseObject({
      prompt: text('the edit instruction'),
      images: z
        .array(z.looseObject({}, { error: 'must be an object { image_url } or { file_id }' }), {
          error: 'must be an array of { image_url } or { file_id }',
        })
        .min(1, 'must hold at least one image')
        .optional(),
    })
    .refine((b) => hasValue(b.image) || b.images !== undefined, {
      path: ['image'],
      message: 'is required (the image to edit: `image`, or `images: [{ image_url }]`)',
    }),
);

const hasValue = (v: unknown) => v !== undefined && v !== null && v !== '';

/** POST /v1/videos: a non-empty `prompt`. */
export const videosSchema = lazy(() =>
  z.looseObject({
    prompt: text('the video description'),
    model: z.string({ error: 'must be a string' }).optional(),
  }),
);

/** The endpoints that have a well-known schema. */
export const WELL_KNOWN_SCHEMAS: Partial<Record<GatewayEndpointName, () => z.ZodType>> = {
  chatCompletions: chatCompletionsSchema,
  responses: responsesSchema,
  messages: messagesSchema,
  generateContent: generateContentSchema,
  geminiProImage: generateContentSchema,
  geminiFlashImage: generateContentSchema,
  imagesGenerations: imagesGenerationsSchema,
  imagesEdits: imagesEditsSchema,
  videos: videosSchema,
};

export function hasWellKnownSchema(name: GatewayEndpointName): boolean {
  return WELL_KNOWN_SCHEMAS[name] !== undefined;
}

export function isJsonObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/**
 * `stream: true` asks for a server-sent event stream, which the client does not read: its answer would be
 * an unreadable 2xx after the provider processed (and billed) the call. Refused before sending, on every
 * entry point that offers streaming (chat, responses, messages, images), and harmlessly on the others.
 */
export function streamIssue(stream: unknown): ValidationIssue | undefined {
  if (stream !== true && stream !== 'true') return undefined;
  return {
    field: 'stream',
    rule:
      'is not supported: the answer would be a server-sent event stream, which this client does not read; ' +
      'send it without `stream` (or `stream: false`) and the whole answer comes back at once',
  };
}

/** The rules every gateway body follows, then the well-known schema when asked for and one exists. */
export function validateGatewayBody(
  name: GatewayEndpointName,
  body: unknown,
  checkWellKnown = false,
): Validation<Record<string, unknown>> {
  if (!isJsonObject(body)) return { ok: false, issues: [{ field: '(body)', rule: 'must be a JSON object' }] };
  const streaming = streamIssue(body.stream);
  if (streaming) return { ok: false, issues: [streaming] };
  const schema = WELL_KNOWN_SCHEMAS[name];
  if (!checkWellKnown || !schema) return { ok: true, value: body };
  const checked = validateWith(schema(), body);
  // The checked copy would drop nothing (loose schemas), but the caller's object is what gets sent.
  return checked.ok ? { ok: true, value: body } : checked;
}

/**
 * Multipart bodies (images edits, /v1/videos): no streaming; the field names of the well-known request
 * when asked (edits: `prompt` and `image` or `image[]`; videos: `prompt`, `input_reference` optional).
 */
export function validateGatewayForm(
  name: GatewayEndpointName,
  fieldNames: readonly string[],
  stream: unknown,
  checkWellKnown = false,
): Validation<null> {
  const streaming = streamIssue(stream);
  if (streaming) return { ok: false, issues: [streaming] };
  if (!checkWellKnown) return { ok: true, value: null };
  const issues: ValidationIssue[] = [];
  const what = name === 'videos' ? 'the video description' : 'the edit instruction';
  if (!fieldNames.includes('prompt')) issues.push({ field: 'prompt', rule: `is required (${what})` });
  if (name === 'imagesEdits' && !fieldNames.includes('image') && !fieldNames.includes('image[]'))
    issues.push({ field: 'image', rule: 'is required (the image to edit)' });
  return issues.length === 0 ? { ok: true, value: null } : { ok: false, issues };
}
