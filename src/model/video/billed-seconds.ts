// How many seconds of video a create asks for, as its provider bills them: what a tenant's daily budget in
// seconds (VIDEO_DAILY_SECONDS_BY_TENANT) is charged. One reading for the native create (ReviewThenGenerate)
// and every gateway entry point (GenerateAndPoll), each by the one field its public API bills by: no
// fallback field, since a field the provider ignores would charge a length it does not make. The spec
// documents no default length for a create without one, so such a create's cost is unknown, never 0. Pure.
import type { GatewayTaskEntryPoint } from './gateway-adapters.js';

/** The native create (POST /v1/task/create) or a gateway entry point's. */
export type VideoCreateKind = 'native' | GatewayTaskEntryPoint;

/** The body field that says the video's length, in seconds; null: the entry point makes no video. */
export const BILLED_SECONDS_FIELD: Record<VideoCreateKind, string | null> = {
  native: 'duration',
  unifiedVideo: 'duration',
  vendorA: 'duration', // a string there: "5", "10"
  vendorB: 'duration',
  videos: 'seconds', // a string there: "4", "8", "12"
  aigcImages: null,
};

/** The seconds a create is billed, or the field that would say them when it does not. */
export type BilledSeconds = { seconds: number } | { unknown: string };

/** A positive number, or a string that is one (`"5"`, `"2.5"`); anything else says no length. */
function positiveSeconds(value: unknown): number | undefined {
  const n =
    typeof value === 'number'
      ? value
      : typeof value === 'string' && /^\d+(\.\d+)?$/.test(value.trim())
        ? Number(value)
        : NaN;
  return Number.isFinite(n) && n > 0 ? n : undefined;
}

export function billedSecondsOf(kind: VideoCreateKind, body: Readonly<Record<string, unknown>>): BilledSeconds {
  const field = BILLED_SECONDS_FIELD[kind];
  if (field === null) return { seconds: 0 };
  const seconds = Object.hasOwn(body, field) ? positiveSeconds(body[field]) : undefined;
  return seconds !== undefined ? { seconds } : { unknown: field };
}
