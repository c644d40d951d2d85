// The sandbox's shape: it imports only its own modules, node: builtins and its declared dependencies (the
// one file it shares with the library, the public-host rule, is a link inside src/), and no module imports
// itself around a circle, type imports included: a circle of types still ties two files into one concern.
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const pkg = fileURLToPath(new URL('../', import.meta.url));
const src = join(pkg, 'src');
const manifest = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')) as {
  dependencies?: Record<string, string>;
};

const files = readdirSync(src, { recursive: true, withFileTypes: true })
  .filter((e) => e.isFile() || e.isSymbolicLink())
  .filter((e) => e.name.endsWith('.ts'))
  .map((e) => relative(src, join(e.parentPath, e.name)));

/** Every module a file names (imports, re-exports, `import()` types), type-only ones included. */
function specifiersOf(file: string): string[] {
  return ts.preProcessFile(readFileSync(join(src, file), 'utf8'), true, true).importedFiles.map((f) => f.fileName);
}

function localTarget(from: string, spec: string): string {
  return relative(src, resolve(dirname(join(src, from)), spec.replace(/\.js$/, '.ts')));
}

describe('the sandbox package', () => {
  it('imports only its own modules, node: builtins and its declared dependencies', () => {
    const declared = new Set(Object.keys(manifest.dependencies ?? {}));
    const stray: string[] = [];
    for (const file of files)
      for (const spec of specifiersOf(file)) {
        if (spec.startsWith('node:')) continue;
        if (spec.startsWith('.')) {
          const target = localTarget(file, spec);
          if (!files.includes(target)) stray.push(`${file} -> ${spec}`);
        } else if (!declared.has(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!))
          stray.push(`${file} -> ${spec}`);
      }
    expect(stray).toEqual([]);
  });

  it('has no import circle, type imports included', () => {
    const graph = new Map(
      files.map((f) => [
        f,
        specifiersOf(f)
          .filter((s) => s.startsWith('.'))
          .map((s) => localTarget(f, s)),
      ]),
    );
    const circles: string[] = [];
    const state = new Map<string, 'visiting' | 'done'>();
    const stack: string[] = [];
    const visit = (node: string) => {
      state.set(node, 'visiting');
      stack.push(node);
      for (const next of graph.get(node) ?? []) {
        if (state.get(next) === 'visiting') circles.push([...stack.slice(stack.indexOf(next)), next].join(' -> '));
        else if (!state.has(next)) visit(next);
      }
      stack.pop();
      state.set(node, 'done');
    };
    for (const node of graph.keys()) if (!state.has(node)) visit(node);
    expect(circles).toEqual([]);
  });
});
