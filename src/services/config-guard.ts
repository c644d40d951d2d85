// Keeps the two services' credentials apart at run time too (the types already do for typed code):
// a config object that also carries the other service's secret is a wiring mistake, refused up front.
import type { ServiceName } from './errors.js';

const SECRET_FIELD: Record<ServiceName, 'apiKey' | 'accessToken'> = { video: 'apiKey', review: 'accessToken' };

/** Throws TypeError naming the field at fault; never prints a secret. */
export function assertServiceConfig(service: ServiceName, config: unknown): void {
  const client = service === 'video' ? 'VideoClient' : 'ReviewClient';
  if (typeof config !== 'object' || config === null) throw new TypeError(`${client}: config must be an object`);
  const other: ServiceName = service === 'video' ? 'review' : 'video';
  const foreign = SECRET_FIELD[other];
  if (foreign in config) {
    throw new TypeError(
      `${client}: config carries ${foreign}, the ${other} service's credential; the two services' credentials are never mixed — pass the ${service} service's config only`,
    );
  }
  const own = SECRET_FIELD[service];
  const secret = (config as Record<string, unknown>)[own];
  if (typeof secret !== 'string' || secret.trim() === '')
    throw new TypeError(`${client}: config.${own} must be a non-empty string`);
  // A header value cannot carry control characters; refuse here rather than let undici echo the header.
  // eslint-disable-next-line no-control-regex -- control characters are what this looks for
  if (/[\u0000-\u001f\u007f]/.test(secret)) throw new TypeError(`${client}: config.${own} contains control characters`);
  const base = (config as Record<string, unknown>).baseUrl;
  if (typeof base !== 'string' || !/^https?:\/\/\S+$/i.test(base))
    throw new TypeError(`${client}: config.baseUrl must be an http(s) URL`);
}
