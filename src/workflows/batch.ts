// ReviewThenGenerateBatch: runs many ReviewThenGenerate jobs as child workflows, at most `concurrency` at a
// time, and returns every job's outcome. Thousands of jobs keep the history bounded: after
// `continueAsNewEvery` jobs the run stops starting children, waits until none is in flight, and continues
// as new with a cursor, the counts and the outcomes. Draining first means a new run never has to re-attach
// to children of the previous one, and child ids (`<batchId>/<index>` or the job's business key) make a
// job that was already started impossible to start twice. The run itself is BatchRun (batch-run.ts).
// Under Worker Deployment versioning a batch does not keep its build alive to the end: once another build
// is current, it drains and continues as new onto it, and its later children start there.
import { makeContinueAsNewFunc, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import { invalidRunInput, type BatchActivities } from '../contract/index.js';
import {
  BATCH_DEFAULTS,
  batchProgressQuery,
  validateBatchInput,
  type BatchCarry,
  type BatchSummary,
  type ReviewThenGenerateBatchInput,
} from '../job/batch-input.js';
import { BatchRun } from './batch-run.js';
import { fileSource, inlineSource } from './batch-sources.js';

const { rtgReadJobsFile } = proxyActivities<BatchActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1s', maximumInterval: '30s', maximumAttempts: 10 },
});

export async function ReviewThenGenerateBatch(input: ReviewThenGenerateBatchInput): Promise<BatchSummary> {
  const validation = validateBatchInput(input);
  if (!validation.ok) throw invalidRunInput(validation.problem, [validation.problem]);
  const options = validation.value;
  const info = workflowInfo();
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
  const readPage = (page: Parameters<typeof rtgReadJobsFile>[0]) =>
    rtgReadJobsFile.executeWithOptions({ summary: `read jobs from line ${page.line + 1}` }, [page]);
  const source = options.jobs
    ? inlineSource(options.jobs, state)
    : fileSource(readPage, options.jobsFile!, options.pageSize ?? BATCH_DEFAULTS.pageSize, state);
  const run = new BatchRun(state, source, {
    concurrency: options.concurrency ?? BATCH_DEFAULTS.concurrency,
    every: options.continueAsNewEvery ?? BATCH_DEFAULTS.continueAsNewEvery,
    maxOutcomes: options.maxOutcomes ?? BATCH_DEFAULTS.maxOutcomes,
    childTaskQueue: options.taskQueue ?? info.taskQueue,
    indexed: options.searchAttributes ?? true,
  });
  setHandler(batchProgressQuery, () => run.progress());

  await run.runJobs();
  if (!(await source.exhausted())) {
    const moving = workflowInfo().targetWorkerDeploymentVersionChanged;
    const next = makeContinueAsNewFunc<typeof ReviewThenGenerateBatch>(
      moving ? { initialVersioningBehavior: 'AUTO_UPGRADE' } : {},
    );
    await next({ ...input, carry: state });
  }
  return run.finish();
}
