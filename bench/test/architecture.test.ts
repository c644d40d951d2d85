// The tools' shape: no module of bench/ imports itself around a circle, type imports included (a circle of
// types still ties two files into one concern), and the library never imports the tools.
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const tools = fileURLToPath(new URL('../', import.meta.url));
const repo = resolve(tools, '..');

/** The .ts files under `dir` (relative to the repository), without dependencies and the tools' tests. */
function sources(dir: string): string[] {
  return readdirSync(join(repo, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => relative(repo, join(e.parentPath, e.name)))
    .filter((f) => !f.includes('node_modules') && !f.startsWith('bench/test/'));
}

/** The repository files a module names (imports, re-exports, `import()` types), type-only ones included. */
function localImports(file: string): string[] {
  return ts
    .preProcessFile(readFileSync(join(repo, file), 'utf8'), true, true)
    .importedFiles.map((f) => f.fileName)
    .filter((spec) => spec.startsWith('.'))
    .map((spec) => relative(repo, resolve(dirname(join(repo, file)), spec.replace(/\.js$/, '.ts'))));
}

describe('the tools workspace (bench/)', () => {
  it('has no import circle, type imports included', () => {
    const files = sources('bench');
    const graph = new Map(files.map((f) => [f, localImports(f)]));
    const circles: string[] = [];
    const state = new Map<string, 'visiting' | 'done'>();
    const stack: string[] = [];
    const visit = (node: string) => {
      state.set(node, 'visiting');
      stack.push(node);
      for (const next of graph.get(node) ?? []) {
        if (!graph.has(next)) continue;
        if (state.get(next) === 'visiting') circles.push([...stack.slice(stack.indexOf(next)), next].join(' -> '));
        else if (!state.has(next)) visit(next);
      }
      stack.pop();
      state.set(node, 'done');
    };
    for (const node of graph.keys()) if (!state.has(node)) visit(node);
    expect(circles).toEqual([]);
  });

  it('is imported by neither the library nor its tests', () => {
    const intoTools = [...sources('src'), ...sources('test'), ...sources('scripts')].flatMap((file) =>
      localImports(file)
        .filter((target) => target.startsWith('bench/'))
        .map((target) => `${file} -> ${target}`),
    );
    expect(intoTools).toEqual([]);
  });
});
