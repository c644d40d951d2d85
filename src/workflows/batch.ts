// ReviewThenGenerateBatch: runs many ReviewThenGenerate jobs as child workflows, at most `concurrency` at a
// time, and returns every job's outcome. Thousands of jobs keep the history bounded: after
// `continueAsNewEvery` jobs the run stops starting children, waits until none is in flight, and continues
// as new with a cursor, the counts and the outcomes. Draining first means a new run never has to re-attach
// to children of the previous one, and child ids (`<batchId>/<index>` or the job's business key) make a
// job that was already started impossible to start twice.
import {
  ApplicationFailure,
  CancellationScope,
  ChildWorkflowFailure,
  condition,
  continueAsNew,
  isCancellation,
  ParentClosePolicy,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  startChild,
  workflowInfo,
} from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError, type SearchAttributePair } from '@temporalio/common';
import type { BatchActivities, JobLine } from '../activities/batch.js';
import { jobMetadata } from '../model/job-metadata.js';
import { FailureType } from '../model/failure-types.js';
import {
  BATCH_DEFAULTS,
  batchProgressQuery,
  parseBatchJob,
  validateBatchInput,
  type BatchCarry,
  type BatchJobOutcome,
  type BatchProgress,
  type BatchSummary,
  type ReviewThenGenerateBatchInput,
} from './batch-input.js';
import type { ReviewThenGenerateInput } from './input.js';
import type { ReviewThenGenerate } from './review-then-generate.js';
import { BatchId, ReviewStage, VideoModel } from './search-attributes.js';

const { rtgReadJobsFile } = proxyActivities<BatchActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1s', maximumInterval: '30s', maximumAttempts: 10 },
});

const ERROR_TEXT_MAX = 300;

/** A job ready to start, or a line/entry that failed validation (recorded as an `invalid` outcome). */
type Entry =
  | { index: number; line?: number; key?: string; input: ReviewThenGenerateInput; metadata: ReturnType<typeof jobMetadata> }
  | { index: number; line?: number; problem: string };

interface JobSource {
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
  if (!parsed.ok) return { index, ...at, problem: line !== undefined ? `line ${line}: ${parsed.problem}` : `job ${index}: ${parsed.problem}` };
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
  return toEntry(index, { ...(entry.key !== undefined ? { key: entry.key } : {}), input: entry.input }, batchId, entry.line);
}

/** Inline jobs: the carried `nextIndex` says how many were handled by earlier runs. */
function inlineSource(jobs: unknown[], state: BatchCarry): JobSource {
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
function fileSource(path: string, pageSize: number, state: BatchCarry): JobSource {
  let page: JobLine[] = [];
  let eof = false;
  const fill = async () => {
    while (page.length === 0 && !eof) {
      const read = await rtgReadJobsFile.executeWithOptions({ summary: `read jobs from line ${state.fileLine + 1}` }, [
        { path, offset: state.fileOffset, line: state.fileLine, limit: pageSize },
      ]);
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

function errorText(err: unknown): string {
  const cause = err instanceof ChildWorkflowFailure && err.cause ? err.cause : err;
  const type = cause instanceof ApplicationFailure && cause.type ? `${cause.type}: ` : '';
  const message = cause instanceof Error ? cause.message : String(cause);
  const text = `${type}${message}`;
  return text.length <= ERROR_TEXT_MAX ? text : `${text.slice(0, ERROR_TEXT_MAX - 1)}…`;
}

export async function ReviewThenGenerateBatch(input: ReviewThenGenerateBatchInput): Promise<BatchSummary> {
  const validation = validateBatchInput(input);
  if (!validation.ok) {
    throw ApplicationFailure.create({ type: FailureType.InvalidInput, message: `invalid batch input: ${validation.problem}`, nonRetryable: true });
  }
  const options = validation.value;
  const info = workflowInfo();
  const concurrency = options.concurrency ?? BATCH_DEFAULTS.concurrency;
  const every = options.continueAsNewEvery ?? BATCH_DEFAULTS.continueAsNewEvery;
  const maxOutcomes = options.maxOutcomes ?? BATCH_DEFAULTS.maxOutcomes;
  const childTaskQueue = options.taskQueue ?? info.taskQueue;
  const indexed = options.searchAttributes ?? true;
  const state: BatchCarry = options.carry ?? {
    batchId: info.workflowId,
    nextIndex: 0,
    fileOffset: 0,
    fileLine: 0,
    counts: { succeeded: 0, failed: 0, cancelled: 0, duplicate: 0, invalid: 0 },
    outcomes: [],
    omittedOutcomes: 0,
    runs: [],
  };
  const source = options.jobs ? inlineSource(options.jobs, state) : fileSource(options.jobsFile!, options.pageSize ?? BATCH_DEFAULTS.pageSize, state);
  const runNumber = state.runs.length + 1;
  let running = 0;
  let handledThisRun = 0;
  let finished = false;

  const progress = (): BatchProgress => {
    const c = state.counts;
    const done = c.succeeded + c.failed + c.cancelled + c.duplicate + c.invalid;
    return { batchId: state.batchId, run: runNumber, total: source.total(), done, running, succeeded: c.succeeded, failed: done - c.succeeded, counts: { ...c }, finished };
  };
  const showDetails = () => {
    const p = progress();
    const c = p.counts;
    setCurrentDetails(
      [
        `**Batch:** ${state.batchId}`,
        `**Progress:** ${p.done} done${p.total !== undefined ? ` of ${p.total}` : ''} · ${p.running} running`,
        `**Outcomes:** ${c.succeeded} succeeded, ${c.failed} failed, ${c.cancelled} cancelled, ${c.duplicate} duplicate, ${c.invalid} invalid`,
        `**Run:** ${runNumber} (continue-as-new every ${every} jobs, ${concurrency} at a time)`,
      ].join('\n\n'),
    );
  };
  setHandler(batchProgressQuery, progress);

  const record = (outcome: BatchJobOutcome) => {
    state.counts[outcome.status]++;
    if (state.outcomes.length < maxOutcomes) state.outcomes.push(outcome);
    else state.omittedOutcomes++;
    showDetails();
  };

  const runJob = async (entry: Extract<Entry, { input: unknown }>) => {
    const workflowId = entry.key ?? `${state.batchId}/${entry.index}`;
    const base = { index: entry.index, workflowId, ...(entry.line !== undefined ? { line: entry.line } : {}) };
    const searchAttributes: SearchAttributePair[] = indexed
      ? [
          { key: ReviewStage, value: 'queued' },
          { key: VideoModel, value: entry.metadata.model },
          { key: BatchId, value: state.batchId },
        ]
      : [];
    try {
      const child = await startChild<typeof ReviewThenGenerate>('ReviewThenGenerate', {
        workflowId,
        taskQueue: childTaskQueue,
        args: [{ ...entry.input, batchId: state.batchId }],
        // A closed batch (cancelled, terminated, timed out) asks its jobs to cancel: each then cancels its
        // video task. TERMINATE would leave tasks running at the service; ABANDON would leave jobs nobody counts.
        parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        typedSearchAttributes: searchAttributes,
        staticSummary: entry.metadata.staticSummary,
        staticDetails: entry.metadata.staticDetails,
      });
      const result = await child.result();
      record({ ...base, status: 'succeeded', taskId: result.taskId, ...(result.videoUrl ? { videoUrl: result.videoUrl } : {}) });
    } catch (err) {
      if (err instanceof WorkflowExecutionAlreadyStartedError) {
        record({ ...base, status: 'duplicate', error: `workflow id ${workflowId} already used (business key started elsewhere or earlier)` });
      } else if (isCancellation(err) || (err instanceof ChildWorkflowFailure && isCancellation(err.cause))) {
        record({ ...base, status: 'cancelled', error: errorText(err) });
      } else {
        record({ ...base, status: 'failed', error: errorText(err) });
      }
    } finally {
      running--;
    }
  };

  showDetails();
  try {
    for (;;) {
      if (handledThisRun >= every || workflowInfo().continueAsNewSuggested) break;
      await condition(() => running < concurrency);
      const entry = await source.next();
      if (!entry) break;
      handledThisRun++;
      if ('problem' in entry) {
        record({ index: entry.index, status: 'invalid', ...(entry.line !== undefined ? { line: entry.line } : {}), error: entry.problem });
        continue;
      }
      running++;
      void runJob(entry);
      showDetails();
    }
    await condition(() => running === 0);
  } catch (err) {
    if (isCancellation(err)) {
      // Children receive the cancellation too; wait for their outcomes before closing as cancelled.
      await CancellationScope.nonCancellable(() => condition(() => running === 0));
    }
    throw err;
  }

  const now = workflowInfo();
  state.runs.push({ run: runNumber, jobs: handledThisRun, historyLength: now.historyLength, historySizeBytes: now.historySize });
  if (!(await source.exhausted())) {
    await continueAsNew<typeof ReviewThenGenerateBatch>({ ...input, carry: state });
  }
  finished = true;
  showDetails();
  return {
    batchId: state.batchId,
    total: state.nextIndex,
    counts: state.counts,
    outcomes: [...state.outcomes].sort((a, b) => a.index - b.index),
    omittedOutcomes: state.omittedOutcomes,
    runs: state.runs,
  };
}
