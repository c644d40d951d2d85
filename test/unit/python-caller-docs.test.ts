// docs/starting-jobs.md shows the Python caller in excerpts: each of its Python blocks is a verbatim part of
// examples/python/caller.py, the file test/python/caller.test.ts runs, so the page cannot drift from it.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

describe('the Python caller in docs/starting-jobs.md', () => {
  it('shows only verbatim excerpts of examples/python/caller.py', () => {
    const source = read('examples/python/caller.py');
    const blocks = [...read('docs/starting-jobs.md').matchAll(/```python\n([\s\S]*?)```/g)].map((m) => m[1]!);
    expect(blocks.length).toBeGreaterThanOrEqual(5);
    for (const block of blocks) expect(source, block).toContain(block);
  });

  it('pins the versions requirements.txt lists, and the docs name the packages', () => {
    const pins = read('examples/python/requirements.txt')
      .split('\n')
      .filter((l) => l && !l.startsWith('#'));
    expect(pins.map((p) => p.split('==')[0])).toEqual(['temporalio', 'cryptography']);
    for (const pin of pins) expect(pin).toMatch(/^[\w-]+==\d+\.\d+\.\d+$/);
  });
});
