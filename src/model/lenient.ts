// Building blocks for lenient response schemas: unknown members are kept, and a member of an unexpected
// type reads as absent instead of failing the whole record. Pure.
import { z } from 'zod';
import { lazy } from './lazy.js';

export function lenient<T extends z.ZodType>(schema: T) {
  return schema.optional().catch(undefined);
}

/** A string, or a number shown as a string (ids and error codes arrive as either). */
export const looseString = lazy(() => lenient(z.union([z.string(), z.number().transform(String)])));

export const looseNumber = lazy(() => lenient(z.number()));

export function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** `{ code, message }` from an error object, a bare message string, or `error_code`/`error_message` members. */
export function errorInfo(
  error: unknown,
  code: unknown,
  message: unknown,
): { code?: string; message?: string } | undefined {
  const e = asRecord(error);
  const out: { code?: string; message?: string } = {};
  const c = looseString().parse(e ? e.code : code);
  const m = looseString().parse(e ? e.message : typeof error === 'string' ? error : message);
  if (c !== undefined && c !== '') out.code = c;
  if (m !== undefined && m !== '') out.message = m;
  return out.code === undefined && out.message === undefined ? undefined : out;
}
