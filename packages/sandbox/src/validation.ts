// The sandbox's own reading of the spec's request bodies (it must not share code with the clients it
// tests, but for the public-address classifier: see nonPublicReason). Every issue names the field and the
// broken rule, e.g. `images[2]: extension .txt is not ...`.
import { z } from 'zod';
import { nonPublicHostReason } from './public-host.js';

export interface Issue {
  field: string;
  rule: string;
}
export type Checked<T> = { ok: true; value: T } | { ok: false; issues: Issue[] };

export type AssetType = 'Image' | 'Video' | 'Audio';

// Spec, "Media rules for submit": the type is inferred from the URL extension.
export const EXTENSIONS: Record<AssetType, string[]> = {
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

// A URL holds no whitespace (RFC 3986), though the WHATWG parser would trim or encode it: refused as written.
export function isHttpUrl(value: string): boolean {
  if (/\s/.test(value)) return false;
  try {
    const u = new URL(value);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '';
  } catch {
    return false;
  }
}

/**
 * The spec's `Asset://` address in the form the registry keeps it: a URL scheme is case-insensitive
 * (RFC 3986 3.1; the WHATWG parser reads `Asset:`, `asset:` and `ASSET:` alike), the id after it is kept as
 * written. Undefined for anything else, or an id that is empty or holds whitespace.
 */
export function assetAddress(url: string): string | undefined {
  const m = /^asset:\/\/(\S+)$/i.exec(url);
  return m ? `Asset://${m[1]}` : undefined;
}

/** What the services accept besides the spec: the sandbox option `allowPrivateUrls`. */
export interface CheckOptions {
  allowPrivateUrls: boolean;
}

// Spec: media URLs and callback addresses are public. The one exception to sharing no code with the
// clients: "public" is the classifier the clients, the workflow input and CALLBACK_PUBLIC_URL use (issue 24),
// so the sandbox and the clients cannot disagree on it; only that function is imported.
/** Why an http(s) URL's host is not public (the name as written: nothing is resolved), or undefined. */
export function nonPublicReason(url: string): string | undefined {
  let host: string;
  try {
    host = new URL(url).hostname;
  } catch {
    return undefined;
  }
  return nonPublicHostReason(host);
}

export function publicUrlProblem(url: string, opts: CheckOptions): string | undefined {
  if (!isHttpUrl(url)) return undefined;
  const reason = opts.allowPrivateUrls ? undefined : nonPublicReason(url);
  return reason ? `must be a public address (${reason})` : undefined;
}

export function fieldPath(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : out === '' ? String(p) : `.${String(p)}`;
  return out || 'body';
}

export function zodIssues(error: z.ZodError): Issue[] {
  return error.issues.map((i) => ({ field: fieldPath(i.path), rule: i.message }));
}

export function describeIssues(issues: Issue[]): string {
  return issues.map((i) => `${i.field}: ${i.rule}`).join('; ');
}

// ---------- Review submit ----------
