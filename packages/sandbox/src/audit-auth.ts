// Audit rules for the services' auth headers (spec, Authentication): the bearer key on the video service
// only, both review headers (a 32-hex X-Track-Id) on the review service only, never mixed.
import type { RequestLogEntry, Violation } from './types.js';

export const AUTH_RULES = {
  mixedAuth: 'auth.mixed-headers',
  missingAuth: 'auth.missing',
  badTrackId: 'auth.bad-track-id',
} as const;

const TRACK_ID = /^[0-9a-fA-F]{32}$/;

export function authViolations(entries: RequestLogEntry[]): Violation[] {
  const out: Violation[] = [];
  const flag = (rule: string, e: RequestLogEntry, detail: string) => out.push({ rule, seq: e.seq, detail });
  for (const e of entries) checkAuth(e, flag);
  return out;
}

function checkAuth(e: RequestLogEntry, flag: (rule: string, e: RequestLogEntry, detail: string) => void): void {
  const h = e.headers;
  if (e.service === 'video') {
    if (h['x-access-token'] !== undefined || h['x-track-id'] !== undefined) {
      flag(
        AUTH_RULES.mixedAuth,
        e,
        'review headers (X-Access-Token / X-Track-Id) sent to the video generation service',
      );
    }
    // Result files are public downloads; every other call, gateway entry points included, needs the key.
    const needsKey = e.operation !== 'other' || (e.gateway !== undefined && e.gateway !== 'file');
    if (needsKey && !/^Bearer \S/.test(h.authorization ?? '')) {
      flag(AUTH_RULES.missingAuth, e, 'video request without Authorization: Bearer');
    }
    return;
  }
  if (h.authorization !== undefined)
    flag(AUTH_RULES.mixedAuth, e, 'Authorization header sent to the asset review service');
  if (e.operation === 'other') return;
  if (!h['x-access-token']) flag(AUTH_RULES.missingAuth, e, 'review request without X-Access-Token');
  const track = h['x-track-id'];
  if (track === undefined || !TRACK_ID.test(track)) {
    flag(
      AUTH_RULES.badTrackId,
      e,
      `X-Track-Id ${track === undefined ? 'missing' : `'${track}' is not 32 hex characters without hyphens`}`,
    );
  }
}
