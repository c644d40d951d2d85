// URL predicates used by the request validators. Pure: workflow code runs these validators inside Temporal's
// deterministic sandbox, where the global `URL` is Node's own (the SDK injects it), so the host is the one
// the WHATWG URL parser reads, as the services read it. Whether it is public: public-host.ts.
import { nonPublicHostReason } from './public-host.js';

export { nonPublicHostReason };

const ASSET_URL = /^asset:\/\/\S+$/i;

/** An http or https URL with a host and no whitespace, that the WHATWG URL parser accepts. */
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

/** The hostname the WHATWG URL parser reads (what the services see), e.g. `[::1]`; undefined if there is none. */
export function hostOf(url: string): string | undefined {
  try {
    return new URL(url).hostname || undefined;
  } catch {
    return undefined;
  }
}

export interface UrlOptions {
  /** Accept hosts that are not public (ALLOW_PRIVATE_URLS: the sandbox, the demo, tests). Default false. */
  allowPrivateUrls?: boolean;
}

/**
 * Why an http(s) URL is not a public address, or undefined when it is (or private ones are allowed): the
 * host the URL parser reads, whatever the text around it (userinfo, a backslash, `#`, percent-encoding, numeric
 * IPv4 forms), classified by nonPublicHostReason. Names are not resolved.
 */
export function nonPublicUrlReason(url: string, options: UrlOptions = {}): string | undefined {
  if (options.allowPrivateUrls) return undefined;
  const host = hostOf(url);
  return host === undefined ? 'the URL cannot be parsed' : nonPublicHostReason(host);
}
