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

const TYPE_WORDS: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'true or false',
  object: 'an object',
  record: 'an object',
  array: 'an array',
};

const quoted = (values: readonly unknown[]) => values.map((v) => JSON.stringify(v)).join(', ');

/**
 * Zod's issues in the project's words ("must be at most 5", not "Too big: expected number to be <=5"),
 * for every check whose schema gives no message of its own: passed to each parse as its `error` map,
 * which zod consults only after the schema's own messages. undefined keeps zod's message.
 */
export function ruleInOurWords(issue: z.core.$ZodRawIssue): string | undefined {
  switch (issue.code) {
    case 'invalid_type': {
      const expected = TYPE_WORDS[issue.expected] ?? issue.expected;
      return issue.input === undefined ? `is required (${expected})` : `must be ${expected}`;
    }
    case 'too_big':
    case 'too_small': {
      const big = issue.code === 'too_big';
      const bound = Number(big ? issue.maximum : issue.minimum);
      const exact = issue.inclusive !== false;
      if (issue.origin === 'string')
        return !big && bound === 1
          ? 'must not be empty'
          : `must be ${big ? 'at most' : 'at least'} ${bound} characters`;
      if (issue.origin === 'array' || issue.origin === 'set')
        return `must hold ${big ? 'at most' : 'at least'} ${bound} item(s)`;
      return `must be ${big ? (exact ? 'at most' : 'less than') : exact ? 'at least' : 'more than'} ${bound}`;
    }
    case 'invalid_value':
      return `must be one of ${quoted(issue.values)}`;
    case 'unrecognized_keys':
      return `has unknown field(s) ${quoted(issue.keys)}`;
    default:
      return undefined;
  }
}

export function toValidationIssues(error: z.ZodError): ValidationIssue[] {
  return error.issues.map((i) => ({ field: fieldPath(i.path), rule: i.message }));
}

export type Validation<T> = { ok: true; value: T } | { ok: false; issues: ValidationIssue[] };

export function validateWith<S extends z.ZodType>(schema: S, body: unknown): Validation<z.infer<S>> {
  const r = schema.safeParse(body, { error: ruleInOurWords });
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
