// The public shapes of GenerateAndPoll: its stages, the `progress` query and the result. Pure: shared with callers.
import { defineQuery } from '@temporalio/workflow';
import type { GatewayTaskEntryPoint, TaskReading } from '../model/video/gateway-adapters.js';

export type GenerateAndPollStage = 'waiting_for_quota' | 'creating' | 'polling' | 'succeeded' | 'failed';

export interface GenerateAndPollProgress {
  stage: GenerateAndPollStage;
  entryPoint: GatewayTaskEntryPoint | undefined;
  taskId?: string;
  /** The last state seen, exactly as the service wrote it (an unknown state shows here too). */
  state?: string;
  /** How that state reads: pending, unknown (never final), or a final outcome. */
  reading?: TaskReading;
  /** The video quota the create waits for or holds (`admission-<quotaKey>`), where the worker sets one. */
  quotaKey?: string;
  /** Create requests sent (more than 1 only with resubmitOnAmbiguity). */
  creates: number;
  queries: number;
  lastError?: string;
}

export const generateAndPollProgressQuery = defineQuery<GenerateAndPollProgress>('progress');

export interface GenerateAndPollResult {
  entryPoint: GatewayTaskEntryPoint;
  taskId: string;
  state: 'succeeded';
  /** The success state as received (e.g. `succeed`, `success`, `completed`). */
  rawState: string | undefined;
  /**
   * Where the video is: the first result URL of the record, or, where the record names none (OpenAI's
   * /v1/videos), the worker's store's address of the copy it kept. Never absent: a success that cannot be
   * kept is a typed failure instead.
   */
  url: string;
  /** The last task record, whole (callback addresses redacted). */
  task: unknown;
  queries: number;
}
