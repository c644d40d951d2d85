// Turns zod issues into ValidationIssues. Pure: shared by both schema modules, which workflow code imports.
import type { z } from 'zod';
import type { ValidationIssue } from './errors.js';

/** ['content', 1, 'image_url', 'url'] -> 'content[1].image_url.url' */
export function fieldPath(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out || '(body)';
}

export function toValidationIssues(error: z.ZodError): ValidationIssue[] {
  return error.issues.map((i) => ({ field: fieldPath(i.path), rule: i.message }));
}

export type Validation<T> = { ok: true; value: T } | { ok: false; issues: ValidationIssue[] };

export function validateWith<S extends z.ZodType>(schema: S, body: unknown): Validation<z.infer<S>> {
  const r = schema.safeParse(body);
  return r.success ? { ok: true, value: r.data } : { ok: false, issues: toValidationIssues(r.error) };
}
