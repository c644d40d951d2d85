// The sandbox's own check of a review submit body (spec: Review submit body, media rules for submit).
import { z } from 'zod';
import {
  assetTypeOfUrl,
  EXTENSIONS,
  isHttpUrl,
  publicUrlProblem,
  type AssetType,
  type Checked,
  type CheckOptions,
  type Issue,
  zodIssues,
} from './validation.js';

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
    // An id names a group: the spec admits an empty value only for group_source ("empty or real_person").
    group_id: z.string().min(1, 'must not be empty (it names a group)').optional(),
    group_source: z.string().optional(),
  },
  { error: 'the body must be a JSON object' },
);

export function checkReviewSubmit(
  body: unknown,
  opts: CheckOptions = { allowPrivateUrls: false },
): Checked<ReviewSubmission> {
  const parsed = reviewBodySchema.safeParse(body);
  if (!parsed.success) return { ok: false, issues: zodIssues(parsed.error) };
  const b = parsed.data;
  const issues: Issue[] = [];
  const urlField = b.asset_url_list !== undefined ? 'asset_url_list' : 'images';
  const urls = b.asset_url_list ?? b.images;
  if (urls === undefined) {
    return {
      ok: false,
      issues: [{ field: 'images', rule: 'is required (an array of 1 to 50 public http(s) media URLs)' }],
    };
  }
  if (urls.length < 1 || urls.length > 50)
    issues.push({ field: urlField, rule: `must hold 1 to 50 URLs (got ${urls.length})` });

  let batchType: AssetType | undefined;
  let batchTypeIndex = 0;
  urls.forEach((url, i) => {
    const field = `${urlField}[${i}]`;
    if (!isHttpUrl(url)) return void issues.push({ field, rule: 'only public http or https URLs are accepted' });
    const notPublic = publicUrlProblem(url, opts);
    if (notPublic) return void issues.push({ field, rule: notPublic });
    const type = assetTypeOfUrl(url);
    if (!type) {
      return void issues.push({
        field,
        rule: `the URL needs a supported extension (${Object.values(EXTENSIONS).flat().join(' ')})`,
      });
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
  if (
    b.group_id !== undefined &&
    b.group_source !== undefined &&
    b.group_source !== '' &&
    b.group_source !== 'real_person'
  ) {
    issues.push({ field: 'group_source', rule: "when group_id is sent it is empty or 'real_person' only" });
  }
  if (issues.length > 0) return { ok: false, issues };
  return {
    ok: true,
    value: { urls, urlField, assetType, callbackUrl: b.callback_url, groupId: b.group_id, groupSource: b.group_source },
  };
}

// ---------- Video create ----------
