// One run of ReviewThenGenerateBatch as a small class (the shape of Temporal's safe-message-handlers
// sample): the carried state, the jobs in flight, the progress the query answers, and the loop that starts
// children at most `concurrency` at a time. The workflow function in batch.ts only wires it up.
import {
  ApplicationFailure,
  CancellationScope,
  ChildWorkflowFailure,
  condition,
  isCancellation,
  ParentClosePolicy,
  setCurrentDetails,
  startChild,
  workflowInfo,
} from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError, type SearchAttributePair } from '@temporalio/common';
import type { BatchCarry, BatchJobOutcome, BatchProgress, BatchSummary } from '../job/batch-input.js';
import type { Entry, JobSource } from './batch-sources.js';
import type { ReviewThenGenerate } from './review-then-generate.js';
import { BatchId, ReviewStage, VideoModel } from '../contract/index.js';

const ERROR_TEXT_MAX = 300;

export interface BatchRunOptions {
  concurrency: number;
  /** Jobs handled by one run before it continues as new. */
  every: number;
  maxOutcomes: number;
  childTaskQueue: string;
  /** Set the children's search attributes (the namespace must know them). */
  indexed: boolean;
}

export class BatchRun {
  readonly #runNumber: number;
  #running = 0;
  #handledThisRun = 0;
  #finished = false;

  constructor(
    readonly state: BatchCarry,
    private readonly source: JobSource,
    private readonly o: BatchRunOptions,
  ) {
    this.#runNumber = state.runs.length + 1;
  }

  progress(): BatchProgress {
    const c = this.state.counts;
    const done = c.succeeded + c.failed + c.cancelled + c.duplicate + c.invalid;
    return {
      batchId: this.state.batchId,
      run: this.#runNumber,
      total: this.source.total(),
      done,
      running: this.#running,
      succeeded: c.succeeded,
      failed: done - c.succeeded,
      counts: { ...c },
      finished: this.#finished,
    };
  }

  /** This run starts no more children: it handled `every`, Temporal suggests continuing, or the build changed. */
  #runIsOver(): boolean {
    const info = workflowInfo();
    return (
      this.#handledThisRun >= this.o.every || info.continueAsNewSuggested || info.targetWorkerDeploymentVersionChanged
    );
  }

  /**
   * Starts jobs until this run has handled `every` of them (or Temporal suggests continuing as new, or
   * another build became current: batch.ts moves there) or the source is empty, then waits for every
   * child it started. A cancelled batch waits for its children's outcomes (they receive the cancellation
   * too) before closing as cancelled.
   */
  async runJobs(): Promise<void> {
    this.showDetails();
    try {
      for (;;) {
        if (this.#runIsOver()) break;
        await condition(() => this.#running < this.o.concurrency || this.#runIsOver());
        if (this.#runIsOver()) break;
        const entry = await this.source.next();
        if (!entry) break;
        this.#handledThisRun++;
        if ('problem' in entry) {
          this.record({
            index: entry.index,
            status: 'invalid',
            ...(entry.line !== undefined ? { line: entry.line } : {}),
            error: entry.problem,
          });
          continue;
        }
        this.#running++;
        void this.runJob(entry);
        this.showDetails();
      }
      await condition(() => this.#running === 0);
    } catch (err) {
      if (isCancellation(err)) await CancellationScope.nonCancellable(() => condition(() => this.#running === 0));
      throw err;
    }
    const now = workflowInfo();
    this.state.runs.push({
      run: this.#runNumber,
      jobs: this.#handledThisRun,
      historyLength: now.historyLength,
      historySizeBytes: now.historySize,
    });
  }

  /** The batch's result, once the source is exhausted. */
  finish(): BatchSummary {
    this.#finished = true;
    this.showDetails();
    const s = this.state;
    return {
      batchId: s.batchId,
      total: s.nextIndex,
      counts: s.counts,
      outcomes: [...s.outcomes].sort((a, b) => a.index - b.index),
      omittedOutcomes: s.omittedOutcomes,
      runs: s.runs,
    };
  }

  private async runJob(entry: Extract<Entry, { input: unknown }>): Promise<void> {
    const workflowId = entry.key ?? `${this.state.batchId}/${entry.index}`;
    const base = { index: entry.index, workflowId, ...(entry.line !== undefined ? { line: entry.line } : {}) };
    const searchAttributes: SearchAttributePair[] = this.o.indexed
      ? [
          { key: ReviewStage, value: 'reviewing' },
          { key: VideoModel, value: entry.metadata.model },
          { key: BatchId, value: this.state.batchId },
        ]
      : [];
    try {
      const child = await startChild<typeof ReviewThenGenerate>('ReviewThenGenerate', {
        workflowId,
        taskQueue: this.o.childTaskQueue,
        args: [{ ...entry.input, batchId: this.state.batchId }],
        // A closed batch (cancelled, terminated, timed out) asks its jobs to cancel: each then cancels its
        // video task. TERMINATE would leave tasks running at the service; ABANDON would leave jobs nobody counts.
        parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        typedSearchAttributes: searchAttributes,
        priority: entry.metadata.priority,
        staticSummary: entry.metadata.staticSummary,
        staticDetails: entry.metadata.staticDetails,
      });
      const result = await child.result();
      this.record({
        ...base,
        status: 'succeeded',
        taskId: result.taskId,
        ...(result.videoUrl ? { videoUrl: result.videoUrl } : {}),
      });
    } catch (err) {
      if (err instanceof WorkflowExecutionAlreadyStartedError) {
        this.record({
          ...base,
          status: 'duplicate',
          error: `workflow id ${workflowId} already used (business key started elsewhere or earlier)`,
        });
      } else if (isCancellation(err) || (err instanceof ChildWorkflowFailure && isCancellation(err.cause))) {
        this.record({ ...base, status: 'cancelled', error: errorText(err) });
      } else {
        this.record({ ...base, status: 'failed', error: errorText(err) });
      }
    } finally {
      this.#running--;
    }
  }

  private record(outcome: BatchJobOutcome): void {
    this.state.counts[outcome.status]++;
    if (this.state.outcomes.length < this.o.maxOutcomes) this.state.outcomes.push(outcome);
    else this.state.omittedOutcomes++;
    this.showDetails();
  }

  private showDetails(): void {
    const p = this.progress();
    const c = p.counts;
    setCurrentDetails(
      [
        `**Batch:** ${this.state.batchId}`,
        `**Progress:** ${p.done} done${p.total !== undefined ? ` of ${p.total}` : ''} · ${p.running} running`,
        `**Outcomes:** ${c.succeeded} succeeded, ${c.failed} failed, ${c.cancelled} cancelled, ${c.duplicate} duplicate, ${c.invalid} invalid`,
        `**Run:** ${this.#runNumber} (continue-as-new every ${this.o.every} jobs, ${this.o.concurrency} at a time)`,
      ].join('\n\n'),
    );
  }
}

function errorText(err: unknown): string {
  const cause = err instanceof ChildWorkflowFailure && err.cause ? err.cause : err;
  const type = cause instanceof ApplicationFailure && cause.type ? `${cause.type}: ` : '';
  const message = cause instanceof Error ? cause.message : String(cause);
  const text = `${type}${message}`;
  return text.length <= ERROR_TEXT_MAX ? text : `${text.slice(0, ERROR_TEXT_MAX - 1)}…`;
}
