// The two services authenticate differently and must never be mixed (spec: Authentication). Each check
// returns the reason for a 401, or undefined when the request may proceed.
import { timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

const TRACK_ID = /^[0-9a-fA-F]{32}$/;

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

export function videoAuthProblem(headers: IncomingHttpHeaders, apiKey: string): string | undefined {
  if (headers['x-access-token'] !== undefined || headers['x-track-id'] !== undefined) {
    return 'the review headers X-Access-Token / X-Track-Id are not accepted by the video generation service; send only Authorization: Bearer <API_KEY>';
  }
  const auth = headers.authorization;
  if (auth === undefined) return 'missing Authorization: Bearer <API_KEY>';
  const m = /^Bearer (.+)$/i.exec(auth);
  if (!m || !sameSecret(m[1] ?? '', apiKey)) return 'bearer token rejected';
  return undefined;
}

export function reviewAuthProblem(headers: IncomingHttpHeaders, accessToken: string): string | undefined {
  if (headers.authorization !== undefined) {
    return 'a bearer token is not used on the asset review service; send X-Access-Token and X-Track-Id only';
  }
  const token = headers['x-access-token'];
  const track = headers['x-track-id'];
  if (typeof token !== 'string' || token === '')
    return 'missing X-Access-Token (X-Access-Token and X-Track-Id are required together)';
  if (typeof track !== 'string' || track === '')
    return 'missing X-Track-Id (X-Access-Token and X-Track-Id are required together)';
  if (!TRACK_ID.test(track)) return 'X-Track-Id must be a 32-character hexadecimal string without hyphens';
  if (!sameSecret(token, accessToken)) return 'X-Access-Token rejected';
  return undefined;
}

/** The credential a request authenticated with (once checked): quotas are kept per credential. */
export function credentialOf(headers: IncomingHttpHeaders): string {
  const token = headers['x-access-token'];
  if (typeof token === 'string') return token;
  return /^Bearer (.+)$/i.exec(headers.authorization ?? '')?.[1] ?? '';
}
