// The two services' base addresses, compared as the clients use them (src/services/http.ts): a request goes
// to the WHATWG URL's origin, at its path without trailing slashes followed by the spec's path. So that
// origin and path prefix are the address a service is reached at, and two spellings of it
// (`https://gw.example.com`, `https://GW.example.com:443/`) are one address. Two path prefixes on one
// origin are two addresses (one gateway with a prefix per service, or an API at the root and the other
// service under a prefix): the spec tells the services apart by base address, not by host.

/** A base address and the setting it came from (a variable or an option's field), for the error message. */
export interface NamedBaseUrl {
  field: string;
  url: string;
}

/** RFC 3986 §6.2.2: unreserved characters decoded, other escapes in upper case. */
function normalizeEscape(escape: string): string {
  const char = String.fromCharCode(parseInt(escape.slice(1), 16));
  return /^[A-Za-z0-9\-._~]$/.test(char) ? char : escape.toUpperCase();
}

/**
 * The address an http(s) base URL reaches: its origin (scheme and host in lower case, IDN in punycode, IP
 * literals in canonical form, the default port dropped, a trailing dot of the host dropped) and its path
 * prefix (dot segments resolved, escapes normalised, no trailing slash). Credentials, query and fragment
 * are not part of it (the clients send neither). Undefined when it is not an http(s) URL.
 */
export function normalizeBaseUrl(url: string): { origin: string; path: string } | undefined {
  let u: URL;
  try {
    u = new URL(url.trim());
  } catch {
    return undefined;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return undefined;
  const host = u.hostname.replace(/\.$/, '');
  return {
    origin: `${u.protocol}//${host}${u.port ? `:${u.port}` : ''}`,
    path: u.pathname.replace(/%[0-9a-fA-F]{2}/g, normalizeEscape).replace(/\/+$/, ''),
  };
}

/**
 * Why the two services' base addresses break the rule that they are never mixed (both fields and the rule
 * named, the shared origin shown, never a credential or query), or undefined when they are two addresses.
 * An address that is not an http(s) URL is left to the check that names it.
 */
export function mixedBaseUrlsProblem(video: NamedBaseUrl, review: NamedBaseUrl): string | undefined {
  const v = normalizeBaseUrl(video.url);
  const r = normalizeBaseUrl(review.url);
  if (!v || !r || v.origin !== r.origin || v.path !== r.path) return undefined;
  const where = v.path === '' ? v.origin : `${v.origin} with the same path prefix`;
  return (
    `${video.field} and ${review.field} must be two different base addresses (the spec: the two services' ` +
    `base addresses are never mixed), but both are ${where}, compared as URLs (host case, default port, ` +
    `trailing slashes ignored)`
  );
}
