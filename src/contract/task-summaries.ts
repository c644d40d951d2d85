// What a query of a remote task gives the workflow, as it is stored in history: the task as read from
// its service (src/model/), with callback addresses redacted, plus the query's outcome. Types only.
import type { ReviewTask } from '../model/review/task.js';
import type { GatewayTaskView } from '../model/video/gateway-adapters.js';
import type { VideoTask } from '../model/video/task.js';

/** What every query result adds: how many queries it took. */
export interface QueryOutcome {
  queries: number;
  /** The query read the task final and gave its quota slot back (PollInput.releaseSlotWhenFinal). */
  slotReleased?: true;
}

/** A review task as stored in history: items without downstream URLs, raw record without callback URLs. */
export type ReviewTaskSummary = Omit<ReviewTask, 'raw'> & { raw: Record<string, unknown> } & QueryOutcome;

export type VideoTaskSummary = VideoTask & QueryOutcome;

/** A task of an asynchronous gateway entry point (GenerateAndPoll). */
export type GatewayTaskSummary = GatewayTaskView & {
  taskId: string;
  raw: unknown;
  queries: number;
};
