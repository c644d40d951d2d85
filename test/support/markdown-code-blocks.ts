// The fenced code blocks of the repository's Markdown, with what the page says about checking each: an HTML
// comment just before the fence, which a reader of the rendered page never sees:
//
//   <!-- doc-check: skip <why> -->        the block is not checked (say why: a fragment of another library's
//                                        API, a placeholder, ...)
//   <!-- doc-check: prelude
//   <code put before the block>         the block is a fragment: this code (imports, `declare const job: ...`)
//   -->                                  makes it a whole file, and the two are checked together
//
// Used by test/docs-code-blocks.test.ts.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

export interface CodeBlock {
  /** The Markdown file, relative to the repository's root. */
  file: string;
  /** The line of the opening fence (1-based). */
  line: number;
  /** The fence's info string's first word, lower case ('' when none). */
  lang: string;
  /** The block's text, the list item's indentation removed. */
  code: string;
  /** `<!-- doc-check: skip why -->` before the fence: why it is not checked. */
  skip?: string;
  /** `<!-- doc-check: prelude ... -->` before the fence: the code that makes the fragment whole. */
  prelude?: string;
}

/** Folders that hold no Markdown of ours: dependencies, build output, local tools, scratch space, fixtures. */
const SKIPPED = new Set(['node_modules', '.temporal-cli', 'dist', '.git', 'coverage', '.tmp', 'test']);

/** Every Markdown file of the repository (README.md, docs/, src/**\/README.md, BENCHMARKS.md, ...). */
export function markdownFiles(root: string, dir = ''): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const rel = dir ? `${dir}/${entry.name}` : entry.name;
    if (entry.isDirectory()) {
      if (!SKIPPED.has(entry.name)) out.push(...markdownFiles(root, rel));
    } else if (entry.isFile() && entry.name.toLowerCase().endsWith('.md')) out.push(rel);
  }
  return out.sort();
}

const DIRECTIVE = /<!--\s*doc-check:\s*(skip|prelude)\b([\s\S]*?)-->\s*$/;

/** The HTML comment that ends just before `fenceIndex` (blank lines between), when it is a doc-check directive. */
function directiveBefore(lines: string[], fenceIndex: number): Pick<CodeBlock, 'skip' | 'prelude'> {
  let end = fenceIndex - 1;
  while (end >= 0 && lines[end]!.trim() === '') end--;
  if (end < 0 || !lines[end]!.trimEnd().endsWith('-->')) return {};
  let start = end;
  while (start > 0 && !lines[start]!.includes('<!--')) start--;
  const m = DIRECTIVE.exec(lines.slice(start, end + 1).join('\n'));
  if (!m) return {};
  const text = m[2]!.replace(/^[ \t]*\n/, '');
  return m[1] === 'skip' ? { skip: text.trim() } : { prelude: text };
}

/** The fenced code blocks of one Markdown file. */
export function codeBlocks(root: string, file: string): CodeBlock[] {
  const lines = readFileSync(path.join(root, file), 'utf8').split('\n');
  const blocks: CodeBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})\s*([\w+-]*)/.exec(lines[i]!);
    if (!open) continue;
    const [, indent = '', fence = '', info = ''] = open;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const close = /^\s*(`{3,}|~{3,})\s*$/.exec(lines[j]!);
      if (close && close[1]![0] === fence[0] && close[1]!.length >= fence.length) break;
      body.push(lines[j]!.startsWith(indent) ? lines[j]!.slice(indent.length) : lines[j]!);
    }
    blocks.push({ file, line: i + 1, lang: info.toLowerCase(), code: body.join('\n'), ...directiveBefore(lines, i) });
    i = j;
  }
  return blocks;
}
