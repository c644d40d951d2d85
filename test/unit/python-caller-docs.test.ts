// docs/starting-jobs.md shows the Python caller in excerpts: each of its Python blocks is a verbatim part of
// examples/python/caller.py, the file test/python/caller.test.ts runs, so the page cannot drift from it.
import { describe, expect, it } from 'vitest';
import { expectPackageDefaults, expectVerbatimExcerpts, readRepoFile } from './caller-docs.js';

describe('the Python caller in docs/starting-jobs.md', () => {
  it('shows only verbatim excerpts of examples/python/caller.py', () => {
    expectVerbatimExcerpts('python', ['examples/python/caller.py'], 5);
  });

  it("falls back to the package's defaults: address, namespace and the workers' task queue", () => {
    expectPackageDefaults(
      'examples/python/caller.py',
      (source, variable) => new RegExp(`os\\.environ\\.get\\("${variable}", "([^"]*)"\\)`).exec(source)?.[1],
    );
  });

  it('pins the versions requirements.txt lists, and the docs name the packages', () => {
    const pins = readRepoFile('examples/python/requirements.txt')
      .split('\n')
      .filter((l) => l && !l.startsWith('#'));
    expect(pins.map((p) => p.split('==')[0])).toEqual(['temporalio', 'cryptography']);
    for (const pin of pins) expect(pin).toMatch(/^[\w-]+==\d+\.\d+\.\d+$/);
  });
});
