// The layout as a rule: workflow code (bundled into Temporal's deterministic sandbox) reaches only
// `src/workflows/` and the pure model in `src/model/`, besides the SDK's workflow packages, zod and
// ipaddr.js (used by the public-address classifier, src/model/public-host.ts: pure, it bundles); and no
// import cycle anywhere in `src/`, and no file there over 250 lines. Type-only imports are erased and do
// not count.
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { cyclesAmong, reachableFrom, sourceFiles } from './support/import-graph.js';

const root = fileURLToPath(new URL('../', import.meta.url));
const ALLOWED_PACKAGES = new Set(['@temporalio/workflow', '@temporalio/common', 'zod', 'ipaddr.js']);
const MODEL_PACKAGES = new Set(['zod', 'ipaddr.js']);

describe('architecture', () => {
  it('workflow code imports only src/workflows/, src/model/, @temporalio/workflow, @temporalio/common, zod and ipaddr.js', () => {
    const modules = reachableFrom(`${root}src/workflows/index.ts`, root);
    const outside = [...modules.keys()].filter((m) => !m.startsWith('src/workflows/') && !m.startsWith('src/model/'));
    const packages = [...modules.values()].flatMap((m) => m.packages).filter((p) => !ALLOWED_PACKAGES.has(p));
    expect({ outside, packages }).toEqual({ outside: [], packages: [] });
    expect(modules.size).toBeGreaterThan(10);
  });

  it('the pure model imports nothing but itself, zod and ipaddr.js', () => {
    for (const file of sourceFiles(`${root}src/model`)) {
      const modules = reachableFrom(file, root);
      const outside = [...modules.keys()].filter((m) => !m.startsWith('src/model/'));
      const packages = [...modules.values()].flatMap((m) => m.packages).filter((p) => !MODEL_PACKAGES.has(p));
      expect({ file, outside, packages }).toEqual({ file, outside: [], packages: [] });
    }
  });

  it('keeps every file in src/ to at most 250 lines (one concern a file)', () => {
    const long = sourceFiles(`${root}src`)
      .map((f) => ({ file: relative(root, f), lines: readFileSync(f, 'utf8').split('\n').length - 1 }))
      .filter((f) => f.lines > 250);
    expect(long).toEqual([]);
  });

  it('has no import cycle in src/', () => {
    expect(cyclesAmong(sourceFiles(`${root}src`), root)).toEqual([]);
  });
});
