// Where a batch's jobs come from: an inline list, or a JSON Lines file read page by page by an activity.
// Each job is validated like a single start; a bad one becomes an entry with its problem. Both sources
// advance the cursor in the state carried across continue-as-new, so a new run resumes where the last stopped.
import type { JobLine, JobsPage, ReadJobsInput } from '../contract/index.js';
import { jobMetadata } from '../job/metadata.js';
import { parseBatchJob, type BatchCarry } from '../job/batch-input.js';
import type { ReviewThenGenerateInput } from '../job/input.js';

/** Reads one page of the jobs file (the batch activity). */
export type ReadJobsPage = (input: ReadJobsInput) => Promise<JobsPage>;

/** A job ready to start, or a line/entry that failed validation (recorded as an `invalid` outcome). */
export type Entry =
  | {
      index: number;
      line?: number;
      key?: string;
      input: ReviewThenGenerateInput;
      metadata: ReturnType<typeof jobMetadata>;
    }
  | { index: number; line?: number; problem: string };

export interface JobSource {
  /** The next entry, or undefined at the end of the batch. Advances the cursor in the carried state. */
  next(): Promise<Entry | undefined>;
  /** True when no entry is left (may read ahead one page). */
  exhausted(): Promise<boolean>;
  /** Jobs in the batch when known. */
  total(): number | undefined;
}

/** Validates one job (inline value, or a file line the activity already parsed) into an entry. */
function toEntry(index: number, value: unknown, batchId: string, line?: number): Entry {
  const at = line !== undefined ? { line } : {};
  const parsed = parseBatchJob(value);
  if (!parsed.ok)
    return {
      index,
      ...at,
      problem: line !== undefined ? `line ${line}: ${parsed.problem}` : `job ${index}: ${parsed.problem}`,
    };
  return {
    index,
    ...at,
    ...(parsed.key !== undefined ? { key: parsed.key } : {}),
    input: parsed.input,
    metadata: jobMetadata(parsed.job, { businessKey: parsed.key, batchId, batchIndex: index }),
  };
}

function fromLine(index: number, entry: JobLine, batchId: string): Entry {
  if ('problem' in entry) return { index, line: entry.line, problem: entry.problem };
  return toEntry(
    index,
    { ...(entry.key !== undefined ? { key: entry.key } : {}), input: entry.input },
    batchId,
    entry.line,
  );
}

/** Inline jobs: the carried `nextIndex` says how many were handled by earlier runs. */
export function inlineSource(jobs: unknown[], state: BatchCarry): JobSource {
  return {
    async next() {
      if (state.nextIndex >= jobs.length) return undefined;
      const index = state.nextIndex++;
      return toEntry(index, jobs[index], state.batchId);
    },
    async exhausted() {
      return state.nextIndex >= jobs.length;
    },
    total: () => jobs.length,
  };
}

/** A JSON Lines file read page by page by an activity; the carried byte offset says where to resume. */
export function fileSource(readPage: ReadJobsPage, path: string, pageSize: number, state: BatchCarry): JobSource {
  let page: JobLine[] = [];
  let eof = false;
  const fill = async () => {
    while (page.length === 0 && !eof) {
      const read = await readPage({ path, offset: state.fileOffset, line: state.fileLine, limit: pageSize });
      page = read.entries;
      eof = read.eof;
      // Blank lines at the end of a page: move the cursor past them now.
      if (page.length === 0) {
        state.fileOffset = read.end;
        state.fileLine = read.line;
      }
    }
  };
  return {
    async next() {
      await fill();
      const entry = page.shift();
      if (!entry) return undefined;
      state.fileOffset = entry.end;
      state.fileLine = entry.line;
      return fromLine(state.nextIndex++, entry, state.batchId);
    },
    async exhausted() {
      await fill();
      return page.length === 0 && eof;
    },
    total: () => (eof && page.length === 0 ? state.nextIndex : undefined),
  };
}
