// X-Track-Id: 32 lowercase hex characters without hyphens, a fresh value per request (spec: authentication).
import { randomBytes } from 'node:crypto';

export const TRACK_ID_PATTERN = /^[0-9a-f]{32}$/;

export function newTrackId(): string {
  return randomBytes(16).toString('hex');
}
