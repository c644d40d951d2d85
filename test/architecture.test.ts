// The layout as a rule: workflow code (bundled into Temporal's deterministic sandbox) reaches only
// `src/workflows/` and the pure model in `src/model/`, besides the SDK's workflow packages and zod; and no
// import cycle anywhere in `src/`. Type-only imports are erased and do not count.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { cyclesAmong, reachableFrom, sourceFiles } from './support/import-graph.js';

const root = fileURLToPath(new URL('../', import.meta.url));
const ALLOWED_PACKAGES = new Set(['@temporalio/workflow', '@temporalio/common', 'zod']);

describe('architecture', () => {
  it('workflow code imports only src/workflows/, src/model/, @temporalio/workflow, @temporalio/common and zod', () => {
    const modules = reachableFrom(`${root}src/workflows/index.ts`, root);
    const outside = [...modules.keys()].filter((m) => !m.startsWith('src/workflows/') && !m.startsWith('src/model/'));
    const packages = [...modules.values()].flatMap((m) => m.packages).filter((p) => !ALLOWED_PACKAGES.has(p));
    expect({ outside, packages }).toEqual({ outside: [], packages: [] });
    expect(modules.size).toBeGreaterThan(10);
  });

  it('the pure model imports nothing but itself and zod', () => {
    for (const file of sourceFiles(`${root}src/model`)) {
      const modules = reachableFrom(file, root);
      const outside = [...modules.keys()].filter((m) => !m.startsWith('src/model/'));
      const packages = [...modules.values()].flatMap((m) => m.packages).filter((p) => p !== 'zod');
      expect({ file, outside, packages }).toEqual({ file, outside: [], packages: [] });
    }
  });

  it('has no import cycle in src/', () => {
    expect(cyclesAmong(sourceFiles(`${root}src`), root)).toEqual([]);
  });
});
