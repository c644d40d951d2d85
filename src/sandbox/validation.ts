// The sandbox's own reading of the spec's request bodies (it must not share code with the clients it
// tests). Every issue names the field and the broken rule, e.g. `images[2]: extension .txt is not ...`.
import { BlockList, isIP } from 'node:net';
import { z } from 'zod';

export interface Issue {
  field: string;
  rule: string;
}
export type Checked<T> = { ok: true; value: T } | { ok: false; issues: Issue[] };

export type AssetType = 'Image' | 'Video' | 'Audio';

// Spec, "Media rules for submit": the type is inferred from the URL extension.
const EXTENSIONS: Record<AssetType, string[]> = {
  Image: ['.jpeg', '.jpg', '.png', '.webp', '.bmp', '.tiff', '.tif', '.gif', '.heic', '.heif'],
  Video: ['.mp4', '.mov'],
  Audio: ['.wav', '.mp3'],
};

export function assetTypeOfUrl(url: string): AssetType | undefined {
  let pathname: string;
  try {
    pathname = new URL(url).pathname.toLowerCase();
  } catch {
    return undefined;
  }
  for (const [type, exts] of Object.entries(EXTENSIONS) as Array<[AssetType, string[]]>) {
    if (exts.some((e) => pathname.endsWith(e))) return type;
  }
  return undefined;
}

export function isHttpUrl(value: string): boolean {
  try {
    const u = new URL(value);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '';
  } catch {
    return false;
  }
}

/** What the services accept besides the spec: the sandbox option `allowPrivateUrls`. */
export interface CheckOptions {
  allowPrivateUrls: boolean;
}

// Spec: media URLs and callback addresses are public. Loopback, private (RFC 1918, unique-local) and
// link-local ranges are not; WHATWG URL parsing already turns numeric forms like 2130706433 into 127.0.0.1.
const NOT_PUBLIC = new BlockList();
for (const [net, bits] of [['0.0.0.0', 8], ['10.0.0.0', 8], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12], ['192.168.0.0', 16]] as const) {
  NOT_PUBLIC.addSubnet(net, bits, 'ipv4');
}
for (const [net, bits] of [['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10]] as const) NOT_PUBLIC.addSubnet(net, bits, 'ipv6');

/** Why an http(s) URL's host is not public (the name as written: nothing is resolved), or undefined. */
export function nonPublicReason(url: string): string | undefined {
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase().replace(/\.$/, '');
  } catch {
    return undefined;
  }
  if (host === 'localhost' || host.endsWith('.localhost')) return `${host} is localhost`;
  const bare = host.replace(/^\[|\]$/g, '');
  const family = isIP(bare);
  if (family !== 0 && NOT_PUBLIC.check(bare, family === 6 ? 'ipv6' : 'ipv4')) return `${bare} is a loopback, private or link-local address`;
  return undefined;
}

function publicUrlProblem(url: string, opts: CheckOptions): string | undefined {
  if (!isHttpUrl(url)) return undefined;
  const reason = opts.allowPrivateUrls ? undefined : nonPublicReason(url);
  return reason ? `must be a public address (${reason})` : undefined;
}

export function fieldPath(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : out === '' ? String(p) : `.${String(p)}`;
  return out || 'body';
}

function zodIssues(error: z.ZodError): Issue[] {
  return error.issues.map((i) => ({ field: fieldPath(i.path), rule: i.message }));
}

export function describeIssues(issues: Issue[]): string {
  return issues.map((i) => `${i.field}: ${i.rule}`).join('; ');
}

// ---------- Review submit ----------

export interface ReviewSubmission {
  urls: string[];
  /** Which body field the URLs were read from ('asset_url_list' wins when both are sent). */
  urlField: 'images' | 'asset_url_list';
  assetType: AssetType;
  callbackUrl: string | undefined;
  groupId: string | undefined;
  groupSource: string | undefined;
}

const reviewBodySchema = z.object(
  {
    images: z.array(z.string()).optional(),
    asset_url_list: z.array(z.string()).optional(),
    asset_type: z.enum(['Image', 'Video', 'Audio']).optional(),
    callback_url: z.string().optional(),
    group_id: z.string().optional(),
    group_source: z.string().optional(),
  },
  { error: 'the body must be a JSON object' },
);

export function checkReviewSubmit(body: unknown, opts: CheckOptions = { allowPrivateUrls: false }): Checked<ReviewSubmission> {
  const parsed = reviewBodySchema.safeParse(body);
  if (!parsed.success) return { ok: false, issues: zodIssues(parsed.error) };
  const b = parsed.data;
  const issues: Issue[] = [];
  const urlField = b.asset_url_list !== undefined ? 'asset_url_list' : 'images';
  const urls = b.asset_url_list ?? b.images;
  if (urls === undefined) {
    return { ok: false, issues: [{ field: 'images', rule: 'is required (an array of 1 to 50 public http(s) media URLs)' }] };
  }
  if (urls.length < 1 || urls.length > 50) issues.push({ field: urlField, rule: `must hold 1 to 50 URLs (got ${urls.length})` });

  let batchType: AssetType | undefined;
  let batchTypeIndex = 0;
  urls.forEach((url, i) => {
    const field = `${urlField}[${i}]`;
    if (!isHttpUrl(url)) return void issues.push({ field, rule: 'only public http or https URLs are accepted' });
    const notPublic = publicUrlProblem(url, opts);
    if (notPublic) return void issues.push({ field, rule: notPublic });
    const type = assetTypeOfUrl(url);
    if (!type) {
      return void issues.push({ field, rule: `the URL needs a supported extension (${Object.values(EXTENSIONS).flat().join(' ')})` });
    }
    if (batchType === undefined) [batchType, batchTypeIndex] = [type, i];
    else if (type !== batchType) {
      issues.push({ field, rule: `is ${type} but ${urlField}[${batchTypeIndex}] is ${batchType}: one type per batch` });
    }
  });

  const assetType = b.asset_type ?? 'Image';
  if (batchType !== undefined && batchType !== assetType) {
    const said = b.asset_type === undefined ? 'defaults to Image' : `is ${assetType}`;
    issues.push({ field: 'asset_type', rule: `${said} but the URLs are ${batchType}` });
  }
  if (b.callback_url !== undefined) {
    const problem = isHttpUrl(b.callback_url) ? publicUrlProblem(b.callback_url, opts) : 'must be an http(s) URL';
    if (problem) issues.push({ field: 'callback_url', rule: problem });
  }
  // Spec: "When group_id is sent it is empty or real_person only"; without group_id any value passes.
  if (b.group_id !== undefined && b.group_source !== undefined && b.group_source !== '' && b.group_source !== 'real_person') {
    issues.push({ field: 'group_source', rule: "when group_id is sent it is empty or 'real_person' only" });
  }
  if (issues.length > 0) return { ok: false, issues };
  return {
    ok: true,
    value: { urls, urlField, assetType, callbackUrl: b.callback_url, groupId: b.group_id, groupSource: b.group_source },
  };
}

// ---------- Video create ----------

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
    type: z.enum(['text', 'image_url', 'video_url', 'audio_url'], { error: 'must be one of text, image_url, video_url, audio_url' }),
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
    model: z.string({ error: 'is required (a model name)' }).min(1, 'must not be empty'),
    content: z.array(contentItemSchema, { error: 'is required (an array of content items)' }).min(1, 'must hold at least one item'),
    generate_audio: z.boolean().optional(),
    // Spec: "Form is <w>:<h>"; one keyword (e.g. adaptive) passes too, as services of this kind take them.
    ratio: z.string().refine(ratioOk, 'must have the form <w>:<h> (e.g. 16:9) or be one keyword (e.g. adaptive)').optional(),
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
  if (/^asset:\/\//i.test(url)) return url.startsWith('Asset://') && url.length > 'Asset://'.length ? undefined : "must be 'Asset://<id>'";
  return isHttpUrl(url) ? publicUrlProblem(url, opts) : 'must be a public http(s) URL or an Asset:// address';
}

export function checkVideoCreate(body: unknown, opts: CheckOptions = { allowPrivateUrls: false }): Checked<VideoCreate> {
  const parsed = createBodySchema.safeParse(body);
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
      if (item.text === undefined || item.text.trim() === '') issues.push({ field: `${at}.text`, rule: 'is required when type=text' });
      else prompts.push(item.text);
      if (item.role !== undefined) roles.set(item.role, [...(roles.get(item.role) ?? []), { index: i, type: item.type }]);
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
      if (items.length === 0) issues.push({ field: 'content', rule: `a first-frame and last-frame request needs an image_url item with role ${role}` });
      else if (notImage) issues.push({ field: `content[${notImage.index}].role`, rule: `${role} must be on an image_url item in a first-frame and last-frame request` });
      else if (items.length > 1) issues.push({ field: `content[${items[1]!.index}].role`, rule: `only one ${role} item is allowed` });
    }
    if (prompts.length === 0) issues.push({ field: 'content', rule: 'a first-frame and last-frame request also needs a text item' });
  }
  if (b.callback_url !== undefined) {
    const problem = publicUrlProblem(b.callback_url, opts);
    if (problem) issues.push({ field: 'callback_url', rule: problem });
  }
  if (issues.length > 0) return { ok: false, issues };
  return { ok: true, value: { model: b.model, callbackUrl: b.callback_url, prompt: prompts.join('\n'), media } };
}
