// Activity of ReviewThenGenerateBatch: reads one page of a JSON Lines jobs file from a byte offset, so the
// workflow never holds thousands of jobs in one payload and a continued-as-new run resumes exactly where
// the last one stopped. Each line is validated like a single start; a bad line comes back as a problem
// naming its line number (never its content: the file may hold anything the worker can read).
import { open } from 'node:fs/promises';
import { isAbsolute, relative, resolve } from 'node:path';
import { parseBatchJob } from '../job/batch-input.js';
import {
  jobsFileUnreadable,
  type BatchActivities,
  type JobLine,
  type JobsPage,
  type ReadJobsInput,
} from '../contract/index.js';

/** A line longer than this is reported as invalid without being parsed (a job is a few KiB). */
export const MAX_LINE_BYTES = 256 * 1024;
/** Bytes of jobs returned by one call at most: keeps the activity result far below the 2 MB payload limit. */
export const MAX_PAGE_BYTES = 512 * 1024;
const CHUNK_BYTES = 64 * 1024;

export interface BatchActivityOptions {
  /** When set, only files under this directory may be read. */
  jobsRoot?: string;
}

function checkPath(path: string, root: string | undefined): void {
  const problem = !isAbsolute(path)
    ? 'must be an absolute path'
    : !/\.(jsonl|ndjson)$/i.test(path)
      ? 'must end with .jsonl or .ndjson'
      : root && relative(resolve(root), resolve(path)).startsWith('..')
        ? `must be under ${root}`
        : undefined;
  if (problem) {
    throw jobsFileUnreadable(`jobs file ${path} ${problem}`);
  }
}

function parseLine(text: string, line: number, end: number): JobLine {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // JSON.parse's message quotes the line: keep the content out of the history.
    return { line, end, problem: `line ${line}: not valid JSON` };
  }
  const parsed = parseBatchJob(value);
  if (!parsed.ok) return { line, end, problem: `line ${line}: ${parsed.problem}` };
  return { line, end, ...(parsed.key !== undefined ? { key: parsed.key } : {}), input: parsed.input };
}

export async function readJobsPage(input: ReadJobsInput, root?: string): Promise<JobsPage> {
  checkPath(input.path, root);
  let file;
  try {
    file = await open(input.path, 'r');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw jobsFileUnreadable(
      `cannot open jobs file ${input.path} (${code ?? 'error'}): it must exist on the worker's machine`,
      // A missing or forbidden file stays so; anything else (EMFILE, EIO) may pass.
      code === 'ENOENT' || code === 'EACCES' || code === 'EISDIR',
    );
  }
  try {
    const entries: JobLine[] = [];
    const chunk = Buffer.alloc(CHUNK_BYTES);
    let pending = Buffer.alloc(0); // bytes read but not yet part of a complete line
    let pos = input.offset; // file offset of pending[0]
    let line = input.line;
    let pageBytes = 0;
    let skipping = false; // inside an over-long line: drop bytes until its newline
    let eof = false;
    const take = (raw: Buffer, skipped: boolean) => {
      const tooLong = skipped || raw.length > MAX_LINE_BYTES;
      line++;
      const end = pos;
      let text = raw.toString('utf8');
      if (line === 1) text = text.replace(/^\uFEFF/, '');
      text = text.replace(/\r$/, '');
      if (tooLong) entries.push({ line, end, problem: `line ${line}: longer than ${MAX_LINE_BYTES} bytes` });
      else if (text.trim() !== '') {
        entries.push(parseLine(text, line, end));
        pageBytes += raw.length;
      }
    };
    while (entries.length < input.limit && pageBytes < MAX_PAGE_BYTES) {
      const nl = pending.indexOf(0x0a);
      if (nl >= 0) {
        const raw = pending.subarray(0, nl);
        pos += nl + 1;
        pending = pending.subarray(nl + 1);
        take(raw, skipping);
        skipping = false;
        continue;
      }
      if (pending.length > MAX_LINE_BYTES) {
        pos += pending.length;
        pending = Buffer.alloc(0);
        skipping = true;
      }
      const { bytesRead } = await file.read(chunk, 0, CHUNK_BYTES, pos + pending.length);
      if (bytesRead === 0) {
        if (pending.length > 0 || skipping) {
          const raw = pending;
          pos += pending.length;
          pending = Buffer.alloc(0);
          take(raw, skipping);
        }
        eof = true;
        break;
      }
      pending = Buffer.concat([pending, chunk.subarray(0, bytesRead)]);
    }
    return { entries, end: pos, line, eof };
  } finally {
    await file.close();
  }
}

export function createBatchActivities(options: BatchActivityOptions = {}): BatchActivities {
  return {
    async rtgReadJobsFile(input: ReadJobsInput): Promise<JobsPage> {
      return readJobsPage(input, options.jobsRoot);
    },
  };
}
