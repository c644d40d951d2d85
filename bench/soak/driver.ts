// Starts the jobs (a bounded number in flight, a bounded start rate) and waits for each one's outcome.
// Starting and waiting both ride out the Temporal server's outage: a start is repeated with the same
// workflow id (an "already started" answer means the first one got through) and a lost long-poll is
// simply asked again, until the job's deadline.
import { WorkflowExecutionAlreadyStartedError, WorkflowFailedError, type Client } from '@temporalio/client';
import { ApplicationFailure, TypedSearchAttributes } from '@temporalio/common';
import type { ReviewThenGenerateResult } from '../../src/job/definitions.js';
import { ReviewStage } from '../../src/contract/index.js';
import type { SoakJob } from './jobs.js';

export interface JobRecord {
  job: SoakJob;
  startedAt?: number;
  endedAt?: number;
  /** `succeeded`, a failure type, or `not finished` when the deadline passed first. */
  outcome?: string;
  taskId?: string;
  /** The failure message, kept for the secret scan (never printed in full). */
  error?: string;
  /** The failure's first detail (SubmitUnconfirmed: stage, urls or model, callbackSent, lastError). */
  details?: Record<string, unknown>;
  startAttempts: number;
}

export interface DriverOptions {
  taskQueue: string;
  window: number;
  startRate: number;
  jobDeadlineMs: number;
  /** Called after each start, with how many have been started so far. */
  onStarted?: (started: number) => void;
  onFinished?: () => void;
  /** Errors of the driver itself (start refused, connection lost), kept for the secret scan. */
  errors: string[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function driveJobs(client: Client, jobs: SoakJob[], o: DriverOptions): Promise<JobRecord[]> {
  const records: JobRecord[] = jobs.map((job) => ({ job, startAttempts: 0 }));
  let next = 0;
  let started = 0;
  const minGapMs = 1000 / o.startRate;
  let lastStart = 0;

  const lane = async () => {
    while (next < records.length) {
      const record = records[next++]!;
      const wait = lastStart + minGapMs - Date.now();
      lastStart = Math.max(Date.now(), lastStart + minGapMs);
      if (wait > 0) await sleep(wait);
      await start(client, record, o);
      o.onStarted?.(++started);
      await awaitOutcome(client, record, o);
      o.onFinished?.();
    }
  };
  await Promise.all(Array.from({ length: Math.min(o.window, records.length) }, lane));
  return records;
}

async function start(client: Client, record: JobRecord, o: DriverOptions): Promise<void> {
  const { job } = record;
  record.startedAt = Date.now();
  for (;;) {
    record.startAttempts++;
    try {
      await client.workflow.start('ReviewThenGenerate', {
        taskQueue: o.taskQueue,
        workflowId: job.workflowId,
        args: [job.input],
        // Set as our client helpers do: the run then keeps its stage in search attributes.
        typedSearchAttributes: new TypedSearchAttributes([{ key: ReviewStage, value: 'reviewing' }]),
      });
      return;
    } catch (err) {
      if (err instanceof WorkflowExecutionAlreadyStartedError) return;
      o.errors.push(`start ${job.workflowId}: ${message(err)}`);
      if (Date.now() - record.startedAt > o.jobDeadlineMs) return;
      await sleep(1_000);
    }
  }
}

async function awaitOutcome(client: Client, record: JobRecord, o: DriverOptions): Promise<void> {
  const deadline = (record.startedAt ?? Date.now()) + o.jobDeadlineMs;
  const handle = client.workflow.getHandle(record.job.workflowId);
  while (Date.now() < deadline) {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>(
      (resolve) => (timer = setTimeout(() => resolve('timeout'), deadline - Date.now())),
    );
    try {
      const result = await Promise.race([handle.result() as Promise<ReviewThenGenerateResult>, timeout]);
      if (result === 'timeout') break;
      record.outcome = result.state;
      record.taskId = result.taskId;
      record.endedAt = Date.now();
      return;
    } catch (err) {
      if (err instanceof WorkflowFailedError) {
        const cause = err.cause;
        record.outcome =
          cause instanceof ApplicationFailure && cause.type ? cause.type : (cause?.name ?? 'WorkflowFailed');
        record.error = `${err.message}: ${cause?.message ?? ''}`;
        const details: unknown = cause instanceof ApplicationFailure ? cause.details?.[0] : undefined;
        if (details && typeof details === 'object' && !Array.isArray(details))
          record.details = details as Record<string, unknown>;
        record.endedAt = Date.now();
        return;
      }
      // Server unavailable, long-poll cut: ask again.
      o.errors.push(`result ${record.job.workflowId}: ${message(err)}`);
      await sleep(1_000);
    } finally {
      clearTimeout(timer);
    }
  }
  record.outcome = 'not finished';
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
