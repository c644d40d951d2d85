// The layout as a rule: workflow code (bundled into Temporal's deterministic sandbox) reaches only
// `src/workflows/`, the contract both sides share in `src/contract/`, each job's public shape in `src/job/`
// (inputs, queries, results) and the pure model in `src/model/`,
// besides the SDK's workflow packages, zod and ipaddr.js (used by the public-address classifier,
// src/model/public-host.ts: pure, it bundles); and no import cycle anywhere in `src/`. For these run-time
// rules type-only imports are erased and do not count. A file's length is no rule: a file ends where its
// concern ends (docs/development.md, "Layout"), a reviewer's call rather than a count. Who may know of
// whom is a rule on every import, types included: workflows know nothing of activities/, the callback
// receiver nothing of workflows/, the contract nothing of either side's implementation.
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { allImportsOf, cyclesAmong, importsOf, reachableFrom, sourceFiles } from './support/import-graph.js';

const root = fileURLToPath(new URL('../', import.meta.url));
const ALLOWED_PACKAGES = new Set(['@temporalio/workflow', '@temporalio/common', 'zod', 'ipaddr.js']);
const MODEL_PACKAGES = new Set(['zod', 'ipaddr.js']);
const BELOW_CONTRACT = ['src/contract/', 'src/job/', 'src/model/'];
const WORKFLOW_FOLDERS = ['src/workflows/', 'src/contract/', 'src/job/', 'src/model/'];

/** Imports (types included) of the files under `from` that name a module under one of `forbidden`. */
function importsInto(from: string, forbidden: string[]): string[] {
  return allImportsOf(`${root}${from}`, root).flatMap(({ file, imports }) =>
    imports.filter((i) => forbidden.some((f) => i.startsWith(f))).map((i) => `${file} -> ${i}`),
  );
}

describe('architecture', () => {
  it('workflow code imports only src/workflows/, src/contract/, src/job/, src/model/, @temporalio/workflow, @temporalio/common, zod and ipaddr.js', () => {
    const modules = reachableFrom(`${root}src/workflows/index.ts`, root);
    const outside = [...modules.keys()].filter((m) => !WORKFLOW_FOLDERS.some((f) => m.startsWith(f)));
    const packages = [...modules.values()].flatMap((m) => m.packages).filter((p) => !ALLOWED_PACKAGES.has(p));
    expect({ outside, packages }).toEqual({ outside: [], packages: [] });
    expect(modules.size).toBeGreaterThan(10);
  });

  it('the contract imports at run time only itself, src/job/, src/model/ and the packages workflow code may use', () => {
    for (const file of sourceFiles(`${root}src/contract`)) {
      const modules = reachableFrom(file, root);
      const outside = [...modules.keys()].filter((m) => !BELOW_CONTRACT.some((f) => m.startsWith(f)));
      const packages = [...modules.values()].flatMap((m) => m.packages).filter((p) => !ALLOWED_PACKAGES.has(p));
      expect({ file, outside, packages }).toEqual({ file, outside: [], packages: [] });
    }
  });

  it("a job's public shape imports only itself, src/model/ and the packages workflow code may use, types included", () => {
    const outside = importsInto('src/job', ['src/']).filter((i) => !/ -> src\/(job|model)\//.test(i));
    const packages = sourceFiles(`${root}src/job`)
      .flatMap((f) => importsOf(f, { types: true }).packages)
      .filter((p) => !ALLOWED_PACKAGES.has(p));
    expect({ outside, packages }).toEqual({ outside: [], packages: [] });
  });

  it('workflows import nothing from src/activities/, not even a type: what they share is in src/contract/', () => {
    expect(importsInto('src/workflows', ['src/activities/'])).toEqual([]);
  });

  it('the callback receiver imports nothing from src/workflows/, not even a type', () => {
    expect(importsInto('src/callbacks', ['src/workflows/'])).toEqual([]);
  });

  it('the contract imports nothing from either side, types included', () => {
    expect(
      importsInto('src/contract', ['src/activities/', 'src/callbacks/', 'src/services/', 'src/workflows/']),
    ).toEqual([]);
  });

  it("no module below the workflows imports from src/workflows/, not even a type: the job's shape is in src/job/", () => {
    const below = ['src/model', 'src/job', 'src/contract', 'src/activities', 'src/services', 'src/callbacks'];
    expect(below.flatMap((dir) => importsInto(dir, ['src/workflows/']))).toEqual([]);
  });

  it('failures are made in one module, src/contract/failures.ts (one constructor per failure type)', () => {
    const makers = sourceFiles(`${root}src`)
      .filter((f) => /ApplicationFailure\.create\(|new ApplicationFailure\(/.test(readFileSync(f, 'utf8')))
      .map((f) => relative(root, f));
    expect(makers).toEqual(['src/contract/failures.ts']);
  });

  it('the pure model imports nothing but itself, zod and ipaddr.js', () => {
    for (const file of sourceFiles(`${root}src/model`)) {
      const modules = reachableFrom(file, root);
      const outside = [...modules.keys()].filter((m) => !m.startsWith('src/model/'));
      const packages = [...modules.values()].flatMap((m) => m.packages).filter((p) => !MODEL_PACKAGES.has(p));
      expect({ file, outside, packages }).toEqual({ file, outside: [], packages: [] });
    }
  });

  it('has no import cycle in src/, type imports included', () => {
    expect(cyclesAmong(sourceFiles(`${root}src`), root)).toEqual([]);
  });
});
