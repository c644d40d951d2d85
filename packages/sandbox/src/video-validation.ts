// The sandbox's own check of a video task create body (spec: Create request body, Content item, material rules).
import { z } from 'zod';
import {
  assetAddress,
  isHttpUrl,
  publicUrlProblem,
  type Checked,
  type CheckOptions,
  type Issue,
  zodIssues,
} from './validation.js';

export type MediaType = 'image_url' | 'video_url' | 'audio_url';
export interface MediaRef {
  index: number;
  type: MediaType;
  url: string;
  field: string;
}
export interface VideoCreate {
  model: string;
  callbackUrl: string | undefined;
  prompt: string;
  media: MediaRef[];
}

const urlHolder = z.object({ url: z.string().min(1, 'is required') }, { error: 'must be an object with member url' });
const contentItemSchema = z.object(
  {
    type: z.enum(['text', 'image_url', 'video_url', 'audio_url'], {
      error: 'must be one of text, image_url, video_url, audio_url',
    }),
    text: z.string().optional(),
    image_url: urlHolder.optional(),
    video_url: urlHolder.optional(),
    audio_url: urlHolder.optional(),
    role: z.string().optional(),
  },
  { error: 'each content item must be an object' },
);

function ratioOk(ratio: string): boolean {
  const m = /^(\d+(?:\.\d+)?):(\d+(?:\.\d+)?)$/.exec(ratio);
  if (m) return Number(m[1]) > 0 && Number(m[2]) > 0;
  return /^[a-z][a-z0-9_-]*$/i.test(ratio);
}

const createBodySchema = z.object(
  {
    // A blank name names no model.
    model: z.string({ error: 'is required (a model name)' }).refine((m) => m.trim() !== '', 'must not be empty'),
    content: z
      .array(contentItemSchema, { error: 'is required (an array of content items)' })
      .min(1, 'must hold at least one item'),
    generate_audio: z.boolean().optional(),
    // Spec: "Form is <w>:<h>"; one keyword (e.g. adaptive) passes too, as services of this kind take them.
    ratio: z
      .string()
      .refine(ratioOk, 'must have the form <w>:<h> (e.g. 16:9) or be one keyword (e.g. adaptive)')
      .optional(),
    duration: z.number().positive('must be a positive number of seconds').optional(),
    watermark: z.boolean().optional(),
    callback_url: z.string().refine(isHttpUrl, 'must be an http(s) URL').optional(),
    // Spec: "for example a <number>p form": an example, not a rule.
    resolution: z.string().trim().min(1, 'must not be empty (e.g. 720p)').optional(),
    seed: z.number().int('must be an integer').optional(),
  },
  { error: 'the body must be a JSON object' },
);

const BASE64ISH = /^[A-Za-z0-9+/=\s]{64,}$/;

/** Checks a media URL's form: the caller then checks Asset:// and signed addresses against its records. */
function mediaUrlProblem(url: string, opts: CheckOptions): string | undefined {
  if (/^data:/i.test(url) || BASE64ISH.test(url)) {
    return 'base64 / data: media is not supported; upload it and pass a public URL or an Asset:// address';
  }
  if (/^asset:/i.test(url)) return assetAddress(url) ? undefined : "must be 'Asset://<id>'";
  return isHttpUrl(url) ? publicUrlProblem(url, opts) : 'must be a public http(s) URL or an Asset:// address';
}

/** An object without its `null` members. */
function withoutNulls(v: unknown): unknown {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return v;
  return Object.fromEntries(Object.entries(v).filter(([, x]) => x !== null));
}

/**
 * The body as read: an explicit `null` (of the body or of a content item) is an unset option, since the Ark
 * SDK sends every option it was not given as null; a null `model` or `content` is then reported missing.
 */
function unsetNulls(body: unknown): unknown {
  const b = withoutNulls(body);
  if (typeof b !== 'object' || b === null || Array.isArray(b)) return b;
  const content = (b as { content?: unknown }).content;
  return Array.isArray(content) ? { ...b, content: content.map(withoutNulls) } : b;
}

export function checkVideoCreate(
  body: unknown,
  opts: CheckOptions = { allowPrivateUrls: false },
): Checked<VideoCreate> {
  const parsed = createBodySchema.safeParse(unsetNulls(body));
  if (!parsed.success) return { ok: false, issues: zodIssues(parsed.error) };
  const b = parsed.data;
  const issues: Issue[] = [];
  const media: MediaRef[] = [];
  const prompts: string[] = [];
  // Roles: the spec lists known values, not a closed set, and ties none to an item type: any string passes.
  const roles = new Map<string, Array<{ index: number; type: string }>>();

  b.content.forEach((item, i) => {
    const at = `content[${i}]`;
    if (item.type === 'text') {
      if (item.text === undefined || item.text.trim() === '')
        issues.push({ field: `${at}.text`, rule: 'is required when type=text' });
      else prompts.push(item.text);
      if (item.role !== undefined)
        roles.set(item.role, [...(roles.get(item.role) ?? []), { index: i, type: item.type }]);
      return;
    }
    const holder = item[item.type];
    if (holder === undefined) {
      return void issues.push({ field: `${at}.${item.type}.url`, rule: `is required when type=${item.type}` });
    }
    const field = `${at}.${item.type}.url`;
    const problem = mediaUrlProblem(holder.url, opts);
    if (problem) issues.push({ field, rule: problem });
    else media.push({ index: i, type: item.type, url: holder.url, field });
    if (item.role !== undefined) roles.set(item.role, [...(roles.get(item.role) ?? []), { index: i, type: item.type }]);
  });

  // Spec, material rule 4: first+last frame = two image_url items (first_frame, last_frame) plus a text item.
  // A last_frame makes it such a request; a first_frame alone does not (the spec does not forbid it).
  const last = roles.get('last_frame') ?? [];
  if (last.length > 0) {
    for (const role of ['first_frame', 'last_frame']) {
      const items = roles.get(role) ?? [];
      const notImage = items.find((r) => r.type !== 'image_url');
      if (items.length === 0)
        issues.push({
          field: 'content',
          rule: `a first-frame and last-frame request needs an image_url item with role ${role}`,
        });
      else if (notImage)
        issues.push({
          field: `content[${notImage.index}].role`,
          rule: `${role} must be on an image_url item in a first-frame and last-frame request`,
        });
      else if (items.length > 1)
        issues.push({ field: `content[${items[1]!.index}].role`, rule: `only one ${role} item is allowed` });
    }
    if (prompts.length === 0)
      issues.push({ field: 'content', rule: 'a first-frame and last-frame request also needs a text item' });
  }
  if (b.callback_url !== undefined) {
    const problem = publicUrlProblem(b.callback_url, opts);
    if (problem) issues.push({ field: 'callback_url', rule: problem });
  }
  if (issues.length > 0) return { ok: false, issues };
  return { ok: true, value: { model: b.model, callbackUrl: b.callback_url, prompt: prompts.join('\n'), media } };
}
