// ReviewThenGenerateBatch: its input (zod), the shape of one job, the progress query, the summary it
// returns, and the state it carries across continue-as-new. Pure: shared by the workflow, the activity that
// reads JSON Lines files, and the client helpers.
import { defineQuery } from '@temporalio/workflow';
import { z } from 'zod';
import { lazy } from '../model/lazy.js';
import { formatIssues } from '../model/validation.js';
import {
  businessKeySchema,
  validateReviewThenGenerateInput,
  type ReviewThenGenerateInput,
  type ReviewThenGenerateJob,
} from './input.js';

export const BATCH_WORKFLOW_TYPE = 'ReviewThenGenerateBatch';

export const BATCH_DEFAULTS = {
  concurrency: 20,
  /** Continue-as-new after this many jobs handled in one run (with nothing in flight). */
  continueAsNewEvery: 500,
  /** Lines read per activity call when the jobs come from a JSON Lines file. */
  pageSize: 100,
  /** Per-job outcomes kept in the summary; beyond it only counts grow (keeps every payload under 2 MB). */
  maxOutcomes: 5_000,
} as const;

/** One job of a batch: `{ "key"?: "...", "input": { ... } }`, or a bare ReviewThenGenerate input `{ "task": ... }`. */
export const batchJobSchema = lazy(() =>
  z.object({ key: businessKeySchema().optional(), input: z.unknown() }).strict(),
);

export interface BatchJob {
  key?: string;
  input: ReviewThenGenerateInput;
}

export type ParsedBatchJob =
  | { ok: true; key: string | undefined; input: ReviewThenGenerateInput; job: ReviewThenGenerateJob }
  | { ok: false; problem: string };

/** Validates one job with the same rules as a single start; the problem names each field and rule. */
export function parseBatchJob(value: unknown): ParsedBatchJob {
  const wrapped = typeof value === 'object' && value !== null && !Array.isArray(value) && 'input' in value;
  let key: string | undefined;
  let input: unknown = value;
  const wrapperProblems: string[] = [];
  if (wrapped) {
    // A bad key hides nothing: the input is checked too, and every problem is listed.
    const parsed = batchJobSchema().safeParse(value);
    if (parsed.success) key = parsed.data.key;
    else
      wrapperProblems.push(
        ...parsed.error.issues.map((i) => `${i.path.map(String).join('.') || '(job)'}: ${i.message}`),
      );
    input = (value as { input?: unknown }).input;
  }
  const validation = validateReviewThenGenerateInput(input);
  const problems = [...wrapperProblems, ...(validation.ok ? [] : [formatIssues(validation.problems)])];
  if (problems.length > 0 || !validation.ok) return { ok: false, problem: problems.join('; ') };
  return { ok: true, key, input: input as ReviewThenGenerateInput, job: validation.job };
}

export type BatchJobStatus = 'succeeded' | 'failed' | 'cancelled' | 'duplicate' | 'invalid';

/** The outcome of one job, compact: thousands of them travel in the summary. */
export interface BatchJobOutcome {
  /** Position of the job in the batch (0-based, blank lines not counted). */
  index: number;
  status: BatchJobStatus;
  /** The child run (absent when the job was invalid and nothing was started). */
  workflowId?: string;
  /** 1-based line of the JSON Lines file the job came from. */
  line?: number;
  /** Video task id and video URL of a succeeded job. */
  taskId?: string;
  videoUrl?: string;
  /** `Type: message` of a failed job, the validation problem of an invalid one. */
  error?: string;
}

const countsSchema = lazy(() =>
  z.object({
    succeeded: z.number().int().min(0),
    failed: z.number().int().min(0),
    cancelled: z.number().int().min(0),
    duplicate: z.number().int().min(0),
    invalid: z.number().int().min(0),
  }),
);
export type BatchCounts = z.infer<ReturnType<typeof countsSchema>>;

const runStatsSchema = lazy(() =>
  z.object({
    run: z.number().int(),
    jobs: z.number().int(),
    historyLength: z.number().int(),
    historySizeBytes: z.number().int(),
  }),
);
export type BatchRunStats = z.infer<ReturnType<typeof runStatsSchema>>;

/** What one run hands to the next on continue-as-new; nothing is in flight at that moment. */
export const batchCarrySchema = lazy(() =>
  z
    .object({
      batchId: z.string().min(1),
      /** Index of the next job. */
      nextIndex: z.number().int().min(0),
      /** File source: byte offset and line number (lines read so far) where the next run resumes. */
      fileOffset: z.number().int().min(0),
      fileLine: z.number().int().min(0),
      counts: countsSchema(),
      outcomes: z.array(z.custom<BatchJobOutcome>((v) => typeof v === 'object' && v !== null)),
      omittedOutcomes: z.number().int().min(0),
      runs: z.array(runStatsSchema()),
    })
    .strict(),
);
export type BatchCarry = z.infer<ReturnType<typeof batchCarrySchema>>;

export const batchInputSchema = lazy(() =>
  z
    .object({
      /** Jobs given inline (each `{ key?, input }` or a bare input). Fine for hundreds; use `jobsFile` for more. */
      jobs: z.array(z.unknown()).optional(),
      /** Absolute path of a JSON Lines file (.jsonl / .ndjson), one job a line, read by the worker page by page. */
      jobsFile: z
        .string()
        .min(1)
        .refine((p) => p.startsWith('/'), 'must be an absolute path (the worker reads it)')
        .refine((p) => /\.(jsonl|ndjson)$/i.test(p), 'must end with .jsonl or .ndjson')
        .optional(),
      concurrency: z.number().int().min(1).max(500).optional(),
      /** Task queue of the children; default: the batch's own. */
      taskQueue: z.string().min(1).optional(),
      /** Start children with our search attributes (default true); false on a namespace without them. */
      searchAttributes: z.boolean().optional(),
      continueAsNewEvery: z.number().int().min(1).max(10_000).optional(),
      pageSize: z.number().int().min(1).max(1_000).optional(),
      maxOutcomes: z.number().int().min(0).max(10_000).optional(),
      /** Set by the workflow itself on continue-as-new; never by callers. */
      carry: batchCarrySchema().optional(),
    })
    .strict()
    .refine((b) => (b.jobs === undefined) !== (b.jobsFile === undefined), {
      message: 'give exactly one of jobs or jobsFile',
      path: ['jobs'],
    }),
);

export type ReviewThenGenerateBatchInput = z.input<ReturnType<typeof batchInputSchema>>;

export function validateBatchInput(
  input: unknown,
): { ok: true; value: z.output<ReturnType<typeof batchInputSchema>> } | { ok: false; problem: string } {
  const parsed = batchInputSchema().safeParse(input);
  if (parsed.success) return { ok: true, value: parsed.data };
  return {
    ok: false,
    problem: parsed.error.issues.map((i) => `${i.path.map(String).join('.') || '(input)'}: ${i.message}`).join('; '),
  };
}

export interface BatchProgress {
  batchId: string;
  /** Runs so far, this one included (continue-as-new starts a new run). */
  run: number;
  /** Jobs in the batch; undefined while a file is still being read. */
  total: number | undefined;
  /** Jobs finished (any outcome, invalid ones included). */
  done: number;
  running: number;
  succeeded: number;
  /** Did not succeed: failed, cancelled, duplicate or invalid. */
  failed: number;
  counts: BatchCounts;
  finished: boolean;
}

export const batchProgressQuery = defineQuery<BatchProgress>('batchProgress');

export interface BatchSummary {
  batchId: string;
  total: number;
  counts: BatchCounts;
  /** One entry per job, in index order, up to `maxOutcomes`. */
  outcomes: BatchJobOutcome[];
  /** Jobs whose outcome was counted but not listed (beyond `maxOutcomes`); find them with `BatchId="..."`. */
  omittedOutcomes: number;
  /** History length and size of each run: stays bounded however many jobs the batch has. */
  runs: BatchRunStats[];
}
