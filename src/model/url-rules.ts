// URL predicates used by the request validators. Pure and regex-based (no URL global): workflow code runs
// these validators inside Temporal's deterministic sandbox.

const ASSET_URL = /^asset:\/\/\S+$/i;

/** An http or https URL with a host and no whitespace. */
export function isHttpUrl(value: string): boolean {
  return /^https?:\/\/\S+$/i.test(value) && hostOf(value) !== undefined;
}

/** The spec's stable review address, e.g. `Asset://abc123`. */
export function isAssetUrl(value: string): boolean {
  return ASSET_URL.test(value);
}

/** `data:` URLs and bare base64 payloads: the video service does not take inline media. */
export function isBase64Media(value: string): boolean {
  if (/^data:/i.test(value.trim())) return true;
  const compact = value.replace(/\s+/g, '');
  return compact.length >= 64 && !compact.includes(':') && /^[A-Za-z0-9+/_-]+={0,2}$/.test(compact);
}

/** Lower-case host of an http(s) URL without userinfo, port or IPv6 brackets; undefined if there is none. */
export function hostOf(url: string): string | undefined {
  const m = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i.exec(url);
  if (!m?.[1]) return undefined;
  const authority = m[1].slice(m[1].lastIndexOf('@') + 1);
  if (authority.startsWith('[')) {
    const end = authority.indexOf(']');
    return end > 1 ? authority.slice(1, end).toLowerCase() : undefined;
  }
  const host = authority.replace(/:\d*$/, '').replace(/\.$/, '').toLowerCase();
  return host || undefined;
}

function ipv4Octets(host: string): number[] | undefined {
  const parts = host.split('.');
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p))) return undefined;
  const octets = parts.map(Number);
  return octets.every((o) => o <= 255) ? octets : undefined;
}

function isPrivateIpv4([a, b]: number[]): boolean {
  if (a === undefined || b === undefined) return false;
  return (
    a === 0 ||
    a === 10 ||
    a === 127 ||
    (a === 169 && b === 254) ||
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168)
  );
}

/** Eight 16-bit groups of an IPv6 literal (embedded IPv4 tail allowed), or undefined if it is not one. */
function ipv6Groups(host: string): number[] | undefined {
  let text = host.replace(/%.*$/, '');
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4?.[1]) {
    const o = ipv4Octets(v4[1]);
    if (!o) return undefined;
    text =
      text.slice(0, -v4[1].length) + `${((o[0]! << 8) | o[1]!).toString(16)}:${((o[2]! << 8) | o[3]!).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const parse = (s: string) => (s === '' ? [] : s.split(':'));
  const head = parse(halves[0] ?? '');
  const tail = halves.length === 2 ? parse(halves[1] ?? '') : [];
  const missing = 8 - head.length - tail.length;
  if ((halves.length === 2 && missing < 1) || (halves.length === 1 && missing !== 0)) return undefined;
  const groups = [...head, ...Array<string>(Math.max(missing, 0)).fill('0'), ...tail];
  if (!groups.every((g) => /^[0-9a-f]{1,4}$/i.test(g))) return undefined;
  return groups.map((g) => parseInt(g, 16));
}

function isPrivateIpv6(g: number[]): boolean {
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = g;
  const zeroHead = g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0;
  if (zeroHead && g5 === 0 && g6 === 0 && (g7 === 0 || g7 === 1)) return true; // :: and ::1
  if (zeroHead && g5 === 0xffff) return isPrivateIpv4([g6 >> 8, g6 & 0xff]); // IPv4-mapped
  return (g0 & 0xfe00) === 0xfc00 || (g0 & 0xffc0) === 0xfe80; // unique-local, link-local
}

/**
 * Why a host is not public, or undefined when it is. Catches localhost, loopback, private and link-local
 * IP literals, and numeric hosts in non-canonical forms (e.g. `2130706433`, `0x7f.1`) that resolvers
 * may map onto those ranges. Names are not resolved: this is a check of the address as written.
 */
export function nonPublicHostReason(host: string): string | undefined {
  if (host === 'localhost' || host.endsWith('.localhost')) return 'localhost is not a public host';
  const v4 = ipv4Octets(host);
  if (v4) return isPrivateIpv4(v4) ? `${host} is a loopback, private or link-local address` : undefined;
  if (host.split('.').every((label) => /^(?:0x[0-9a-f]*|\d+)$/i.test(label))) {
    return `${host} is a numeric host in a non-canonical form`;
  }
  if (host.includes(':')) {
    const v6 = ipv6Groups(host);
    if (!v6) return `${host} is not a valid IPv6 address`;
    return isPrivateIpv6(v6) ? `${host} is a loopback, private or link-local address` : undefined;
  }
  return undefined;
}

export interface UrlOptions {
  /** Accept loopback, private and link-local hosts (ALLOW_PRIVATE_URLS: the sandbox, the demo, tests). Default false. */
  allowPrivateUrls?: boolean;
}

/** Why an http(s) URL is not a public address, or undefined when it is (or private ones are allowed). */
export function nonPublicUrlReason(url: string, options: UrlOptions = {}): string | undefined {
  return options.allowPrivateUrls ? undefined : nonPublicHostReason(hostOf(url) ?? '');
}
