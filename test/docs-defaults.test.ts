// Every default the README's configuration table states is the one the code applies. The table says it in
// its second column (`30000`, "the profile's address, else `localhost:7233`", `127.0.0.1`, `8787` for a row
// of two variables); the code says it as the zod default of the variable in the schema that reads it
// (src/config/*.ts), or as a named constant where the default is applied after parsing. A variable whose
// code default is not among the values its row writes in backticks fails, naming both.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { NOTIFY_WINDOW } from '../src/model/notify.js';
import { WORKER_MEMORY } from '../src/config/worker-cache.js';
import { DEFAULT_LEASE_MS } from '../src/workflows/admission/gate.js';
import { CONFIG_SCHEMAS, objectKeys } from './support/config-table.js';

const readme = readFileSync(fileURLToPath(new URL('../README.md', import.meta.url)), 'utf8');

/** Defaults applied after parsing, where the schema leaves the variable optional. */
const APPLIED_AFTER_PARSING: Record<string, unknown> = {
  WORKER_MEMORY_BUDGET_MIB: WORKER_MEMORY.budgetMiB,
  NOTIFY_WINDOW_MS: NOTIFY_WINDOW.defaultMs,
  ADMISSION_LEASE_MS: DEFAULT_LEASE_MS,
};

/** The zod object inside refinements and pipes, as objectKeys finds it. */
function objectOf(schema: unknown): z.ZodObject {
  let s = schema as { shape?: object; _zod?: { def?: { in?: unknown; schema?: unknown; innerType?: unknown } } };
  for (let i = 0; i < 5 && s && !s.shape; i++) {
    const def = s._zod?.def;
    s = (def?.in ?? def?.schema ?? def?.innerType) as typeof s;
  }
  return s as unknown as z.ZodObject;
}

/** Each variable with the default its schema gives it when unset (variables without one are left out). */
function codeDefaults(): Map<string, unknown> {
  const out = new Map<string, unknown>(Object.entries(APPLIED_AFTER_PARSING));
  for (const schema of CONFIG_SCHEMAS) {
    const shape = objectOf(schema).shape as Record<string, z.ZodType>;
    for (const key of objectKeys(schema)) {
      const r = shape[key]!.safeParse(undefined);
      // An empty default (`''`, `[]`) is the unset meaning, which a row says in words ("none").
      const empty = r.success && (r.data === '' || (Array.isArray(r.data) && r.data.length === 0));
      if (r.success && r.data !== undefined && !empty) out.set(key, r.data);
    }
  }
  return out;
}

/** Each variable of the README's configuration table with the values its row's default column writes in backticks. */
function documentedDefaults(): Map<string, { row: string; values: string[] }> {
  const start = readme.indexOf('## Configuration');
  const rows = readme
    .slice(start)
    .split('\n')
    .slice(1)
    .filter((l) => l.startsWith('|'))
    .slice(2);
  const out = new Map<string, { row: string; values: string[] }>();
  for (const row of rows) {
    const [, names = '', defaults = ''] = row.split('|');
    const values = [...defaults.matchAll(/`([^`]*)`/g)].map((m) => m[1]!);
    for (const name of names.split(',').map((n) => n.trim().replace(/`/g, '')))
      if (name) out.set(name, { row: defaults.trim(), values });
  }
  return out;
}

describe("the README's configuration defaults", () => {
  const code = codeDefaults();
  const documented = documentedDefaults();

  it('reads defaults from the code and rows from the table', () => {
    expect(code.get('HTTP_TIMEOUT_MS')).toBe(30_000);
    expect(documented.get('CALLBACK_PORT')?.values).toContain('8787');
    expect(code.size).toBeGreaterThanOrEqual(14);
  });

  it('every default the code applies is one its row states', () => {
    const wrong: string[] = [];
    for (const [name, value] of code) {
      const doc = documented.get(name);
      if (!doc) continue; // a variable the README does not list (docs/ does): its own table's concern
      const said = typeof value === 'boolean' ? [String(value), value ? '1' : '0'] : [String(value)];
      if (!said.some((v) => doc.values.includes(v))) wrong.push(`${name}: code ${String(value)}, README "${doc.row}"`);
    }
    expect(wrong).toEqual([]);
  });

  it('a row that states a default for a variable the code reads without one is wrong too', () => {
    const stated = [...documented].filter(([name, d]) => d.values.length > 0 && !code.has(name)).map(([n]) => n);
    // These rows write a value that is not a default: an example or the unset meaning, said in words.
    const NOT_DEFAULTS = new Set(['VIDEO_CANCEL_METHOD', 'VIDEO_CANCEL_PATH']);
    expect(stated.filter((n) => !NOT_DEFAULTS.has(n) && documented.get(n)!.row.startsWith('`'))).toEqual([]);
  });
});

describe('every variable the configuration reads is documented', () => {
  const operations = readFileSync(fileURLToPath(new URL('../docs/operations.md', import.meta.url)), 'utf8');
  const documented = new Set([...`${readme}\n${operations}`.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]!));

  it('in the README or docs/operations.md, by its name in backticks', () => {
    const variables = CONFIG_SCHEMAS.flatMap(objectKeys);
    expect(variables.length).toBeGreaterThan(40);
    expect(variables.filter((v) => !documented.has(v))).toEqual([]);
  });
});
