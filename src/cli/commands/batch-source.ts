// Where a batch's jobs come from on the command line: a JSON Lines file (passed by absolute path: the
// worker reads it) or a JSON array given inline or in a file.
import { resolve } from 'node:path';
import type { ReviewThenGenerateBatchInput } from '../../job/batch-input.js';
import { positiveInt, readJson, usage } from '../io.js';

export const BATCH_SOURCE_OPTIONS = {
  file: { type: 'string' },
  jobs: { type: 'string' },
  'jobs-file': { type: 'string' },
  concurrency: { type: 'string' },
} as const;

export const BATCH_SOURCE_HELP = `  --file <jobs.jsonl>    JSON Lines file, one job a line ({ "key"?, "input" } or a bare input); read by
                         the worker, page by page, at this absolute path (relative paths are resolved here)
  --jobs <json>          the jobs as a JSON array (instead of --file)
  --jobs-file <path|->   a JSON array of jobs in a file, or - for standard input
  --concurrency <n>      jobs running at once (default 20)`;

export function batchInputFrom(values: {
  file?: string | undefined;
  jobs?: string | undefined;
  'jobs-file'?: string | undefined;
  concurrency?: string | undefined;
}): ReviewThenGenerateBatchInput {
  const concurrency = positiveInt('concurrency', values.concurrency);
  const inline = values.jobs !== undefined || values['jobs-file'] !== undefined;
  if ((values.file !== undefined) === inline) throw usage('give exactly one of --file, --jobs or --jobs-file');
  if (values.file !== undefined) return { jobsFile: resolve(values.file), ...(concurrency ? { concurrency } : {}) };
  const jobs = readJson('jobs', values.jobs, values['jobs-file']);
  if (!Array.isArray(jobs)) throw usage('--jobs must be a JSON array of jobs');
  return { jobs, ...(concurrency ? { concurrency } : {}) };
}
