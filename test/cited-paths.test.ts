// Comments cite only files the repository holds. A comment in the code that names a file (`task-waiter.ts`,
// `src/model/job-schemas.ts`, `../support/stack.ts`) must name one that exists: a file renamed or deleted
// leaves its citations behind, and a reader follows them to nothing. docs-links.test.ts does the same for
// the Markdown. A bare name must be some file's name; a path resolves from the root, from the citing file's
// folder, or as the tail of a repository path. Names that are not ours (build output, packages, the
// reader's own files) are listed below with the reason.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Dependencies, build output, generated and recorded files, the user's files: folders not walked. */
const SKIPPED = new Set(['node_modules', '.temporal-cli', 'dist', '.git', 'coverage', '.tmp', 'results', 'histories']);

/** Names a comment may cite that the checkout does not hold, each for a stated reason. */
const NOT_OURS = new Map<string, string>([
  ['ipaddr.js', 'an npm package'],
  ['temporal.toml', "the user's Temporal configuration file"],
  ['DIR/report.json', "a placeholder for the soak's --out folder"],
  ['workflow-bundle.js', 'written by the build (dist/) and the soak'],
  ['dist/workflow-bundle.js', 'written by the build'],
  ['dist/workflow-bundle.otel.js', 'written by the build'],
  ['workflow-bundle.encrypted.js', 'written by the build'],
  ['.tmp/helm-cli/located.json', 'written by scripts/helm-cli.mjs'],
  ['internal/k8s/deployments.go', "a file of KEDA's source, which the Helm test cites"],
  ['../pkg/dist/x.js', 'an example of an installed path'],
  ['resources/videos.d.ts', 'a file of the openai npm package'],
  ['dist/X.js', 'a placeholder'],
  ['src/X.ts', 'a placeholder'],
]);

/** A file-like token: a name with one of our extensions, optionally with folders before it. */
const CITED =
  /(?<![\w@:./-])((?:\.{1,2}\/)?[\w.-]+(?:\/[\w.-]+)*\.(?:ts|mjs|cjs|js|md|json|ya?ml|go|py|toml|sh))(?![\w/])/g;
/** A comment line of TypeScript, JavaScript, Go or Python. */
const COMMENT = /^\s*(?:\/\/+|\/\*+|\*|#)\s?(.*)$/;

function repositoryFiles(dir = ''): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const rel = dir ? `${dir}/${entry.name}` : entry.name;
    if (entry.isDirectory()) {
      if (!SKIPPED.has(entry.name)) out.push(...repositoryFiles(rel));
    } else out.push(rel);
  }
  return out;
}

const files = repositoryFiles();
const names = new Set(files.map((f) => path.basename(f)));

function exists(cited: string, citingFile: string): boolean {
  // Built output names its source: dist/<name>.js is src/<name>.ts compiled.
  const source = /^dist\/(.*)\.js$/.exec(cited);
  if (source && existsSync(path.join(root, 'src', `${source[1]}.ts`))) return true;
  if (!cited.includes('/')) return names.has(cited);
  const tail = `/${cited.replace(/^(\.\.?\/)+/, '')}`;
  return (
    existsSync(path.join(root, cited)) ||
    existsSync(path.join(root, path.dirname(citingFile), cited)) ||
    files.some((f) => `/${f}`.endsWith(tail))
  );
}

/** Every file cited in a comment of `file` that does not exist, as `file:line: cited`. */
function missingCitations(file: string): string[] {
  const out: string[] = [];
  readFileSync(path.join(root, file), 'utf8')
    .split('\n')
    .forEach((line, i) => {
      const text = COMMENT.exec(line)?.[1]?.replace(/https?:\/\/\S+/g, '');
      if (text === undefined) return;
      for (const [, cited] of text.matchAll(CITED)) {
        // A suffix (`.otel.js`), a glob or a template names no one file.
        if (cited!.startsWith('.') && !cited!.startsWith('./') && !cited!.startsWith('../')) continue;
        if (/[*<>{}]/.test(cited!) || NOT_OURS.has(cited!)) continue;
        if (!exists(cited!, file)) out.push(`${file}:${i + 1}: ${cited}`);
      }
    });
  return out;
}

describe('paths cited in comments', () => {
  const code = files.filter((f) => /\.(ts|mjs|cjs|js|go|py)$/.test(f));

  it('walks the code of every part of the repository', () => {
    for (const part of ['src/', 'test/', 'bench/', 'scripts/', 'examples/', 'packages/sandbox/'])
      expect(
        code.some((f) => f.startsWith(part)),
        part,
      ).toBe(true);
  });

  it('every file a comment names exists', () => {
    expect(code.flatMap(missingCitations)).toEqual([]);
  });

  it('catches a stale citation', () => {
    const probe = 'test/.cited-paths-probe.ts';
    expect(exists('src/workflows/no-such-file.ts', probe)).toBe(false);
    expect(exists('no-such-file.ts', probe)).toBe(false);
    expect(exists('task-waiter.ts', probe)).toBe(true);
    expect(exists('dist/worker.js', probe)).toBe(true);
    expect(exists('../src/worker.ts', probe)).toBe(true);
  });
});
