// rtgReadJobsFile's reader on real files: pages by byte offset, line numbers, blank lines, CRLF and BOM,
// bad lines reported by number without their content, over-long lines, and unreadable paths.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { MAX_LINE_BYTES, readJobsPage } from '../../src/activities/batch.js';
import type { JobLine } from '../../src/contract/index.js';
import { imageJob } from '../support/stack.js';

const dir = mkdtempSync(join(tmpdir(), 'read-jobs-'));
function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}
const job = (i: number) => JSON.stringify(imageJob(`https://cdn.example.com/jobs/${i}.jpg`));

async function readAll(path: string, limit: number): Promise<{ entries: JobLine[]; pages: number }> {
  const entries: JobLine[] = [];
  let offset = 0;
  let line = 0;
  for (let pages = 1; ; pages++) {
    const page = await readJobsPage({ path, offset, line, limit });
    entries.push(...page.entries);
    expect(page.entries.length).toBeLessThanOrEqual(limit);
    if (page.eof) return { entries, pages };
    offset = page.end;
    line = page.line;
  }
}

describe('readJobsPage', () => {
  it('reads a file page by page from byte offsets, every line exactly once, with its line number', async () => {
    const lines = Array.from({ length: 23 }, (_, i) => job(i));
    const path = file('many.jsonl', `${lines.join('\n')}\n`);
    const { entries, pages } = await readAll(path, 5);
    expect(pages).toBe(5);
    expect(entries.map((e) => e.line)).toEqual(Array.from({ length: 23 }, (_, i) => i + 1));
    expect(entries.every((e) => 'input' in e)).toBe(true);
    const urls = entries.map((e) => ('input' in e ? JSON.stringify(e.input) : ''));
    expect(urls[22]).toContain('/jobs/22.jpg');
  });

  it('skips blank lines, accepts CRLF, a BOM, a last line without newline, and { key, input } lines', async () => {
    const text = `\uFEFF${job(0)}\r\n\r\n   \n${JSON.stringify({ key: 'order-7', input: imageJob() })}\n\n${job(2)}`;
    const { entries } = await readAll(file('mixed.jsonl', text), 100);
    expect(entries.map((e) => e.line)).toEqual([1, 4, 6]);
    expect(entries.every((e) => 'input' in e)).toBe(true);
    expect(entries[1]).toMatchObject({ key: 'order-7' });
  });

  it('reports bad lines by number and rule, never echoing their content', async () => {
    const secretish = 'root:x:0:0:root:/root:/bin/bash';
    const bad = { ...imageJob(), task: { model: '', content: [] } };
    const text = [
      job(0),
      secretish,
      JSON.stringify(bad),
      JSON.stringify({ key: 'has space', input: imageJob() }),
      job(4),
    ].join('\n');
    const { entries } = await readAll(file('bad.jsonl', text), 100);
    const problems = entries.filter((e): e is Extract<JobLine, { problem: string }> => 'problem' in e);
    expect(problems.map((p) => p.line)).toEqual([2, 3, 4]);
    expect(problems[0]!.problem).toBe('line 2: not valid JSON');
    expect(problems[1]!.problem).toMatch(/^line 3: task\.model/);
    expect(problems[2]!.problem).toMatch(/^line 4: key: must be printable/);
    expect(JSON.stringify(entries)).not.toContain('root:x');
  });

  it('reports an over-long line without reading it into the page, and goes on after it', async () => {
    const huge = `{"pad":"${'x'.repeat(MAX_LINE_BYTES + 10)}"}`;
    const { entries } = await readAll(file('long.jsonl', [job(0), huge, job(2)].join('\n')), 100);
    expect(entries.map((e) => e.line)).toEqual([1, 2, 3]);
    expect(entries[1]).toMatchObject({ problem: `line 2: longer than ${MAX_LINE_BYTES} bytes` });
    expect('input' in entries[2]!).toBe(true);
  });

  it('fails without retry on a missing file or a path that is not an absolute .jsonl', async () => {
    for (const path of [join(dir, 'missing.jsonl'), 'relative.jsonl', join(dir, 'x.csv')]) {
      const err = await readJobsPage({ path, offset: 0, line: 0, limit: 10 }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ApplicationFailure);
      expect((err as ApplicationFailure).type).toBe('JobsFileUnreadable');
      expect((err as ApplicationFailure).nonRetryable).toBe(true);
    }
  });
});
