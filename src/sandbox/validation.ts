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
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
] as const) {
  NOT_PUBLIC.addSubnet(net, bits, 'ipv4');
}
for (const [net, bits] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
] as const)
  NOT_PUBLIC.addSubnet(net, bits, 'ipv6');

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
  if (family !== 0 && NOT_PUBLIC.check(bare, family === 6 ? 'ipv6' : 'ipv4'))
    return `${bare} is a loopback, private or link-local address`;
  return undefined;
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
