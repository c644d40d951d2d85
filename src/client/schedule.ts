// Scheduled batch runs: a Temporal Schedule that starts ReviewThenGenerateBatch on a cron expression or
// an interval. Overlap policy SKIP: while a batch of the schedule is still running, a due action is
// skipped (and counted), never run beside it and never queued up, so two batches of one schedule never
// work on the same jobs at once. Each action's workflow id is `batch-<scheduleId>-<scheduled time>`.
import { ScheduleOverlapPolicy, type Client, type ScheduleDescription, type ScheduleHandle } from '@temporalio/client';
import { msToNumber } from '@temporalio/common';
import { BATCH_WORKFLOW_TYPE, type ReviewThenGenerateBatchInput } from '../job/batch-input.js';
import { businessKeySchema } from '../job/input.js';
import type { ReviewThenGenerateBatch } from '../workflows/batch.js';
import { batchInputProblems, batchMetadata } from './batch.js';
import { InvalidJobInputError } from './errors.js';
import { defaultTaskQueue } from './start.js';

export interface BatchScheduleOptions {
  scheduleId: string;
  /** Cron expression(s), e.g. `0 3 * * *` (UTC). */
  cron?: string | string[];
  /** Interval, e.g. `1h`, `30m`, `10s`, or milliseconds. */
  every?: string | number;
  batch: ReviewThenGenerateBatchInput;
  taskQueue?: string;
  note?: string;
  paused?: boolean;
}

export interface BatchScheduleInfo {
  scheduleId: string;
  paused: boolean;
  note: string | undefined;
  cron: string[];
  everyMs: number[];
  /** Workflow ids of the batches started recently, oldest first. */
  recentBatches: Array<{ workflowId: string; scheduledAt: string; takenAt: string }>;
  nextRuns: string[];
}

export function batchScheduleWorkflowId(scheduleId: string): string {
  return `batch-${scheduleId}`;
}

export async function createBatchSchedule(client: Client, options: BatchScheduleOptions): Promise<ScheduleHandle> {
  const problems = batchInputProblems(options.batch);
  const id = businessKeySchema().safeParse(options.scheduleId);
  if (!id.success) problems.unshift(...id.error.issues.map((i) => ({ field: 'scheduleId', rule: i.message })));
  const cron = options.cron === undefined ? [] : [options.cron].flat();
  let everyMs: number | undefined;
  if (options.every !== undefined) {
    try {
      everyMs = msToNumber(options.every as never);
      if (!(everyMs >= 1_000)) problems.push({ field: 'every', rule: 'must be at least 1 second' });
    } catch {
      problems.push({ field: 'every', rule: 'must be a duration such as 30s, 15m, 1h, or milliseconds' });
    }
  }
  if (cron.length === 0 && options.every === undefined)
    problems.push({ field: 'cron', rule: 'give a cron expression or an interval (every)' });
  if (problems.length > 0) throw new InvalidJobInputError(problems, 'schedule');

  return client.schedule.create<typeof ReviewThenGenerateBatch>({
    scheduleId: options.scheduleId,
    spec: {
      ...(cron.length > 0 ? { cronExpressions: cron } : {}),
      ...(everyMs !== undefined ? { intervals: [{ every: everyMs }] } : {}),
    },
    action: {
      type: 'startWorkflow',
      workflowType: BATCH_WORKFLOW_TYPE,
      workflowId: batchScheduleWorkflowId(options.scheduleId),
      taskQueue: options.taskQueue ?? defaultTaskQueue(),
      args: [options.batch],
      ...batchMetadata(options.batch),
    },
    policies: {
      overlap: ScheduleOverlapPolicy.SKIP,
      // After an outage, start at most the latest missed batch (SKIP drops the rest), not a burst.
      catchupWindow: '1 minute',
      pauseOnFailure: false,
    },
    state: { paused: options.paused ?? false, ...(options.note ? { note: options.note } : {}) },
    // The server keeps cron as calendar specs; the memo keeps the expression as given, for listings.
    memo: { cron, everyMs: everyMs ?? null },
  });
}

type Described = Pick<ScheduleDescription, 'spec' | 'state' | 'info' | 'memo'>;

function infoOf(scheduleId: string, d: Described): BatchScheduleInfo {
  const cron = d.memo?.cron;
  return {
    scheduleId,
    paused: d.state.paused,
    note: d.state.note,
    cron: Array.isArray(cron) ? cron.map(String) : [],
    everyMs: (d.spec.intervals ?? []).map((i) => Number(i.every)),
    recentBatches: d.info.recentActions.map((a) => ({
      workflowId: a.action.workflow.workflowId,
      scheduledAt: a.scheduledAt.toISOString(),
      takenAt: a.takenAt.toISOString(),
    })),
    nextRuns: d.info.nextActionTimes.map((t) => t.toISOString()),
  };
}

export async function describeBatchSchedule(
  client: Client,
  scheduleId: string,
): Promise<BatchScheduleInfo & { skippedOverlap: number; running: string[] }> {
  const d = await client.schedule.getHandle(scheduleId).describe();
  return {
    ...infoOf(scheduleId, d),
    skippedOverlap: d.info.numActionsSkippedOverlap,
    running: d.info.runningActions.map((a) => a.workflow.workflowId),
  };
}

/** Schedules whose action starts ReviewThenGenerateBatch (the list is eventually consistent). */
export async function listBatchSchedules(client: Client): Promise<BatchScheduleInfo[]> {
  const out: BatchScheduleInfo[] = [];
  for await (const s of client.schedule.list()) {
    if (s.action?.workflowType !== BATCH_WORKFLOW_TYPE || !s.spec) continue;
    out.push(infoOf(s.scheduleId, { spec: s.spec, state: s.state, info: s.info, memo: s.memo } as Described));
  }
  return out;
}

export async function deleteBatchSchedule(client: Client, scheduleId: string): Promise<void> {
  await client.schedule.getHandle(scheduleId).delete();
}
