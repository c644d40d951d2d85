// docs/starting-jobs.md shows the callers in other languages in excerpts: each of its code blocks in a
// language is a verbatim part of that caller's source, the code its test runs, so the page cannot drift from
// it. Used by python-caller-docs.test.ts and go-caller-docs.test.ts.
import { readFileSync } from 'node:fs';
import { expect } from 'vitest';

export const readRepoFile = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

/** The ```<language> blocks of docs/starting-jobs.md. */
export function docsBlocks(language: string): string[] {
  const fence = new RegExp('```' + language + '\\n([\\s\\S]*?)```', 'g');
  return [...readRepoFile('docs/starting-jobs.md').matchAll(fence)].map((m) => m[1]!);
}

/** Every ```<language> block of the page is found verbatim in one of `sources`; there are at least `atLeast`. */
export function expectVerbatimExcerpts(language: string, sources: string[], atLeast: number): void {
  const texts = sources.map(readRepoFile);
  const blocks = docsBlocks(language);
  expect(blocks.length).toBeGreaterThanOrEqual(atLeast);
  for (const block of blocks)
    expect(
      texts.some((text) => text.includes(block)),
      `not a verbatim excerpt of ${sources.join(' or ')}:\n${block}`,
    ).toBe(true);
}
