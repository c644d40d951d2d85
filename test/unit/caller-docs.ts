// docs/starting-jobs.md shows the callers in other languages in excerpts: each of its code blocks in a
// language is a verbatim part of that caller's source, the code its test runs, so the page cannot drift from
// it. Used by python-caller-docs.test.ts and go-caller-docs.test.ts.
import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import { TEMPORAL_DEFAULTS } from '../../src/config/temporal.js';

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

/** The package's defaults, by the variable that overrides each. */
const PACKAGE_DEFAULTS: Record<string, string> = {
  TEMPORAL_ADDRESS: TEMPORAL_DEFAULTS.address,
  TEMPORAL_NAMESPACE: TEMPORAL_DEFAULTS.namespace,
  TEMPORAL_TASK_QUEUE: TEMPORAL_DEFAULTS.taskQueue,
};

/**
 * The caller falls back to the package's own defaults (`read` finds each fallback in the source) and says so
 * in its comment, so that with no variable set it meets a worker that has none set either.
 */
export function expectPackageDefaults(path: string, read: (source: string, variable: string) => string | undefined) {
  const source = readRepoFile(path);
  for (const [variable, value] of Object.entries(PACKAGE_DEFAULTS)) {
    expect(read(source, variable), `${path}: the default of ${variable}`).toBe(value);
    expect(source, `${path}: the comment on ${variable}`).toContain(`${variable} (default \`${value}\``);
  }
}
