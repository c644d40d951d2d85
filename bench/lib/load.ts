// The load generator: starts N workflows as fast as the client allows (bounded in-flight starts), waits
// until none of them is running (one count query every poll, not N long polls), then reads every run's
// start and close times, status and history length from visibility (server clock).
import type { Client } from '@temporalio/client';
import { BatchId } from '../../src/contract/index.js';

export interface RunRecord {
  workflowId: string;
  status: string;
  startMs: number;
  closeMs: number | undefined;
  historyLength: number;
}

export interface LoadResult {
  /** ms epoch (client clock) of the first start call and of the moment none was running any more. */
  startedAt: number;
  finishedAt: number;
  /** Client-side time to issue all N starts. */
  startPhaseMs: number;
  records: RunRecord[];
  timedOut: boolean;
}

export interface LoadOptions {
  client: Client;
  /** The visibility label (BatchId search attribute) of every run of this burst. */
  label: string;
  n: number;
  /** Starts job i (its workflow must carry BatchId = label). */
  start: (i: number) => Promise<unknown>;
  /** Start calls in flight at once. */
  startConcurrency?: number;
  /** Give up waiting after this long (the run is then reported as timed out). */
  timeoutMs: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Issues the N starts, at most `startConcurrency` in flight; resolves when all were accepted. */
export async function startJobs(o: Pick<LoadOptions, 'n' | 'start' | 'startConcurrency'>): Promise<void> {
  let nextIndex = 0;
  const starter = async () => {
    for (;;) {
      const i = nextIndex++;
      if (i >= o.n) return;
      await o.start(i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(o.startConcurrency ?? 64, o.n) }, starter));
}

/** Starts with BatchId = label (and no other search attribute), for workflows other than the package's. */
export function plainStarter(
  client: Client,
  taskQueue: string,
  workflowType: string,
  label: string,
  args: (i: number) => unknown[],
) {
  return (i: number) =>
    client.workflow.start(workflowType, {
      taskQueue,
      workflowId: `${label}-${i}`,
      args: args(i),
      typedSearchAttributes: [{ key: BatchId, value: label }],
    });
}

async function listRuns(client: Client, query: string): Promise<RunRecord[]> {
  const records: RunRecord[] = [];
  for await (const w of client.workflow.list({ query, pageSize: 1000 })) {
    records.push({
      workflowId: w.workflowId,
      status: w.status.name,
      startMs: w.startTime.getTime(),
      closeMs: w.closeTime?.getTime(),
      historyLength: w.historyLength,
    });
  }
  return records;
}

export async function runLoad(o: LoadOptions): Promise<LoadResult> {
  const startedAt = Date.now();
  await startJobs(o);
  const startPhaseMs = Date.now() - startedAt;

  const query = `BatchId = "${o.label}"`;
  let timedOut = false;
  let finishedAt: number;
  let records: RunRecord[];
  for (;;) {
    const { count: running } = await o.client.workflow.count(`${query} AND ExecutionStatus = "Running"`);
    if (running === 0) {
      // Visibility may lag the starts by a moment: make sure all N are there and closed.
      const { count: total } = await o.client.workflow.count(query);
      if (total >= o.n) {
        finishedAt = Date.now();
        records = await listRuns(o.client, query);
        // The two counts can also disagree with the records for a moment: only closed runs end the wait.
        if (records.length >= o.n && records.every((r) => r.status !== 'RUNNING')) break;
      }
    }
    if (Date.now() - startedAt > o.timeoutMs) {
      timedOut = true;
      finishedAt = Date.now();
      records = await listRuns(o.client, query);
      break;
    }
    await sleep(250);
  }
  return { startedAt, finishedAt, startPhaseMs, records, timedOut };
}
