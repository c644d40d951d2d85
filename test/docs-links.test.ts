// The repository's Markdown cites only what the repository holds: every relative link of every Markdown
// file (README.md, docs/, src/**/README.md, BENCHMARKS.md, RELIABILITY.md, ...) resolves to a file or
// folder, an `#anchor` into a Markdown file names one of its headings, and a repository path written in
// the text (`src/...`, `test/...`, `spec/...`, ...) exists. Fenced code blocks are left out: their paths
// are often the reader's own files. The README stays short: at most 200 lines, the rest lives in docs/.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { isExternal, linksOf, proseLines, type Link } from './support/markdown-links.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const README_MAX_LINES = 200;

/** Folders that hold no Markdown of ours: dependencies, build output, local tools and scratch space. */
const SKIPPED = new Set(['node_modules', '.temporal-cli', 'dist', '.git', 'coverage', '.tmp', 'bench/results/tmp']);

function markdownFiles(dir = ''): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const rel = dir ? `${dir}/${entry.name}` : entry.name;
    if (entry.isDirectory()) {
      if (!SKIPPED.has(entry.name) && !SKIPPED.has(rel)) out.push(...markdownFiles(rel));
    } else if (entry.isFile() && entry.name.toLowerCase().endsWith('.md')) {
      out.push(rel);
    }
  }
  return out.sort();
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const { text } of proseLines(markdown)) {
    const heading = /^\s{0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(text)?.[1];
    if (heading !== undefined) {
      const visible = heading
        .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // links and images: their text
        .replace(/<[^>]+>/g, '') // inline HTML
        .replace(/[`*]/g, '');
      const base = visible
        .toLowerCase()
        .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
        .replace(/ /g, '-');
      const count = seen.get(base) ?? 0;
      seen.set(base, count + 1);
      anchors.add(count === 0 ? base : `${base}-${count}`);
    }
    for (const m of text.matchAll(/<a\s[^>]*(?:id|name)="([^"]+)"/g)) anchors.add(m[1]!);
  }
  return anchors;
}

const anchorCache = new Map<string, Set<string>>();
const anchorsOf = (abs: string) => {
  let a = anchorCache.get(abs);
  if (!a) anchorCache.set(abs, (a = headingAnchors(readFileSync(abs, 'utf8'))));
  return a;
};

/** Why a relative link does not resolve, or undefined when it does. */
function brokenBecause(link: Link): string | undefined {
  const hash = link.target.indexOf('#');
  const pathPart = hash < 0 ? link.target : link.target.slice(0, hash);
  const anchor = hash < 0 ? undefined : link.target.slice(hash + 1);
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathPart.split('?')[0]!);
  } catch {
    return 'not a valid URL';
  }
  const abs =
    decoded === ''
      ? path.join(root, link.file)
      : decoded.startsWith('/')
        ? path.join(root, decoded)
        : path.resolve(root, path.dirname(link.file), decoded);
  const rel = path.relative(root, abs);
  if (rel.startsWith('..') || path.isAbsolute(rel)) return 'points outside the repository';
  if (!existsSync(abs)) return `no such file or folder: ${rel.split(path.sep).join('/')}`;
  if (anchor && statSync(abs).isFile() && abs.toLowerCase().endsWith('.md')) {
    const wanted = decodeURIComponent(anchor).toLowerCase();
    if (!anchorsOf(abs).has(wanted)) return `no heading with anchor #${anchor} in ${rel.split(path.sep).join('/')}`;
  }
  return undefined;
}

/** Top-level folders whose paths, written in the text, must exist (`spec/` is not in this repository). */
const CITED = /(?<![\w./@~-])((?:src|test|bench|scripts|deploy|docs|spec)\/[\w./-]*)([*<{]?)/g;

/** Repository paths written in the prose (not in links, not in fenced code) that do not exist. */
function missingCitations(file: string, markdown: string): string[] {
  const out: string[] = [];
  for (const { n, text } of proseLines(markdown)) {
    const prose = text.replace(/!?\[(?:[^[\]]|\[[^\]]*\])*\]\([^)]*\)/g, ''); // links are checked as links
    for (const m of prose.matchAll(CITED)) {
      const cited = m[1]!.replace(/[.,:;]+$/, '');
      const abs = path.join(root, cited);
      let found = existsSync(abs);
      if (!found && m[2]) {
        // A pattern (`bench/results/quick.*`, `bench/results/<name>.json`): something must match its prefix.
        const dir = cited.endsWith('/') ? abs : path.dirname(abs);
        const prefix = cited.endsWith('/') ? '' : path.basename(abs);
        found = existsSync(dir) && readdirSync(dir).some((name) => name.startsWith(prefix));
      }
      if (!found) out.push(`${file}:${n}: cites ${cited}${m[2] ?? ''}, which is not in the repository`);
    }
  }
  return out;
}

const files = markdownFiles();
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');

describe('Markdown links and citations', () => {
  it('finds the Markdown files of the repository', () => {
    for (const f of ['README.md', 'BENCHMARKS.md', 'RELIABILITY.md', 'packages/sandbox/README.md']) {
      expect(files).toContain(f);
    }
    expect(files.filter((f) => f.startsWith('docs/')).length).toBeGreaterThan(0);
  });

  it('every relative link resolves to a file, and every #anchor into Markdown to a heading', () => {
    const broken: string[] = [];
    let checked = 0;
    for (const file of files) {
      for (const link of linksOf(file, read(file))) {
        if (isExternal(link.target)) continue;
        checked++;
        const why = brokenBecause(link);
        if (why) broken.push(`${link.file}:${link.line}: (${link.target}) ${why}`);
      }
    }
    expect(checked).toBeGreaterThan(0);
    expect(broken, `${broken.length} broken relative link(s):\n${broken.join('\n')}\n`).toEqual([]);
  });

  it('every repository path cited in the text exists', () => {
    const missing = files.flatMap((file) => missingCitations(file, read(file)));
    const message = `${missing.length} citation(s) of files not in the repository:\n${missing.join('\n')}\n`;
    expect(missing, message).toEqual([]);
  });

  it(`README.md has at most ${README_MAX_LINES} lines`, () => {
    const lines = read('README.md').replace(/\n$/, '').split('\n').length;
    expect(lines, `README.md has ${lines} lines: move detail to docs/`).toBeLessThanOrEqual(README_MAX_LINES);
  });
});

describe('the link checker itself', () => {
  it('computes GitHub heading anchors', () => {
    const md = ['# A b', '## CLI (`review-video`, or `npm run cli --`)', '```', '# not a heading', '```', '## A b'];
    const a = headingAnchors([...md, '### Reliability: the soak run'].join('\n'));
    expect([...a]).toEqual(['a-b', 'cli-review-video-or-npm-run-cli---', 'a-b-1', 'reliability-the-soak-run']);
  });

  it('finds links outside code and reports a missing file, a missing anchor and a path outside the repository', () => {
    const md = [
      'see [x](docs/nope.md) and `[y](ignored.md)`',
      '```',
      '[z](in-code.md)',
      '```',
      '![img](README.md#no-such-heading) [ok](README.md#configuration)',
      '[up](../../etc/passwd) [w](https://example.com/x)',
    ].join('\n');
    const links = linksOf('README.md', md);
    expect(links.map((l) => l.target)).toEqual([
      'docs/nope.md',
      'README.md#no-such-heading',
      'README.md#configuration',
      '../../etc/passwd',
      'https://example.com/x',
    ]);
    expect(links.filter((l) => !isExternal(l.target)).map((l) => [l.line, brokenBecause(l)])).toEqual([
      [1, 'no such file or folder: docs/nope.md'],
      [5, 'no heading with anchor #no-such-heading in README.md'],
      [5, undefined],
      [6, 'points outside the repository'],
    ]);
  });

  it('reports cited paths that do not exist, and accepts patterns whose prefix does', () => {
    const md =
      'the spec (`spec/video-and-review-services.md`), `src/config/env.ts`, bench/results/quick.*, ' +
      'bench/results/<name>.json, https://cdn.example.com/spec/a.jpg\n';
    expect(missingCitations('X.md', md)).toEqual([
      'X.md:1: cites spec/video-and-review-services.md, which is not in the repository',
    ]);
  });
});
