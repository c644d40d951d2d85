// Validation problems: each names the field and the rule of the spec it breaks. Zod issues become
// ValidationIssues here, and `formatIssues` is the one way to print them. Pure: workflow code imports it.
import type { z } from 'zod';

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

export interface ValidationIssue {
  /** Path of the offending field, e.g. 'content[2].image_url.url'. */
  field: string;
  /** The rule of the spec that was broken, in words. */
  rule: string;
}

export function formatIssues(issues: ValidationIssue[]): string {
  return issues.map((i) => `${i.field}: ${i.rule}`).join('; ');
}

/** Thrown before anything is sent: the request breaks a rule of the spec. */
export class RequestValidationError extends Error {
  override readonly name = 'RequestValidationError';
  readonly issues: ValidationIssue[];

  constructor(operation: string, issues: ValidationIssue[]) {
    super(`${operation} rejected before sending (fix the request): ${formatIssues(issues)}`);
    this.issues = issues;
  }
}
