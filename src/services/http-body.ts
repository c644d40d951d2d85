// Reading a service's answer body: to its end or a size limit, parsed as JSON or kept as a short excerpt,
// with known secrets blanked out before anyone sees it.
import { redact } from './redact.js';

// A successful body larger than this is not a response of these APIs; an error body is only excerpted.
export const MAX_BODY_BYTES = 10 * 1024 * 1024;
export const MAX_ERROR_BODY_BYTES = 64 * 1024;
const EXCERPT_CHARS = 2000;

type BodyStream = AsyncIterable<Buffer> & { destroy(err?: Error): unknown };

/** Reads the body to its end, or destroys it (closing the socket) once it passes `limit` bytes. */
export async function readResponseBody(body: BodyStream, limit: number): Promise<{ text: string; complete: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > limit) {
      body.destroy();
      return { text: Buffer.concat(chunks).toString('utf8'), complete: false };
    }
    chunks.push(chunk);
  }
  return { text: Buffer.concat(chunks).toString('utf8'), complete: true };
}

export function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  if (text.trim() === '') return { ok: true, value: undefined };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

/** Parsed JSON when the text is JSON, else a truncated excerpt; known secrets blanked out either way. */
export function excerpt(text: string | undefined, secrets: readonly string[]): unknown {
  if (text === undefined) return undefined;
  const clean = redact(text, secrets);
  const parsed = parseJson(clean);
  if (parsed.ok && parsed.value !== undefined) return parsed.value;
  return clean.length > EXCERPT_CHARS ? `${clean.slice(0, EXCERPT_CHARS)}…` : clean || undefined;
}
