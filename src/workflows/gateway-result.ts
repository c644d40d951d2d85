// The end of a GenerateAndPoll task: what its final record means for the job. A success is returned with
// its video's address, kept in the worker's store first when the record names none (OpenAI's /v1/videos);
// any other final state is the job's typed failure, with the record as evidence.
import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import {
  generationCancelled,
  generationExpired,
  generationFailed,
  type GatewayActivities,
  type GatewayTaskSummary,
} from '../contract/index.js';
import { FailureType } from '../model/failure-types.js';
import type { GenerateAndPollJob, GenerateAndPollTiming } from '../job/generate-and-poll-input.js';
import type { GenerateAndPollProgress, GenerateAndPollResult } from '../job/generate-and-poll-definitions.js';

/** Keeping a result that has no URL: a download into the store that heartbeats (as the store stage). */
const keeping = (timing: GenerateAndPollTiming) =>
  proxyActivities<GatewayActivities>({
    startToCloseTimeout: '2h',
    heartbeatTimeout: Math.max(Math.min(timing.callTimeoutMs, 30_000), 2_000),
    retry: {
      initialInterval: '1s',
      backoffCoefficient: 2,
      maximumAttempts: 5,
      nonRetryableErrorTypes: [FailureType.VideoStoreFailed, FailureType.GenerationFailed],
    },
  });

/** A final task whose success carries its video's address (the types keep `url: undefined` out of a success). */
export type ReachableTask = GatewayTaskSummary &
  ({ reading: 'succeeded'; url: string } | { reading: Exclude<GatewayTaskSummary['reading'], 'succeeded'> });

/**
 * A succeeded record that names no URL (OpenAI's /v1/videos object) is kept in the worker's store, whose
 * address becomes the result's `url`; where that cannot be done the run fails typed (VideoStoreFailed,
 * GenerationFailed). A success is never reported without a URL.
 */
export async function withResultUrl(job: GenerateAndPollJob, task: GatewayTaskSummary): Promise<ReachableTask> {
  if (task.reading !== 'succeeded') return { ...task, reading: task.reading };
  if (task.url !== undefined) return { ...task, reading: 'succeeded', url: task.url };
  const stored = await keeping(job.timing).rtgKeepGatewayVideo.executeWithOptions(
    { summary: `keep ${job.entryPoint} result ${task.taskId}` },
    [{ workflowId: workflowInfo().workflowId, entryPoint: job.entryPoint, taskId: task.taskId }],
  );
  return { ...task, reading: 'succeeded', url: stored.url };
}

export function outcome(
  job: GenerateAndPollJob,
  task: ReachableTask,
  progress: GenerateAndPollProgress,
): GenerateAndPollResult {
  const evidence = {
    entryPoint: job.entryPoint,
    taskId: task.taskId,
    state: task.state,
    error: task.error,
    record: task.raw,
  };
  const said = task.error?.message ?? task.error?.code;
  switch (task.reading) {
    case 'succeeded':
      progress.stage = 'succeeded';
      return {
        entryPoint: job.entryPoint,
        taskId: task.taskId,
        state: 'succeeded',
        rawState: task.state,
        url: task.url,
        task: task.raw,
        queries: progress.queries,
      };
    case 'cancelled':
      throw generationCancelled(`${job.entryPoint} task ${task.taskId} was cancelled (${task.state})`, evidence);
    case 'expired':
      throw generationExpired(`${job.entryPoint} task ${task.taskId} expired (${task.state})`, evidence);
    default:
      throw generationFailed(
        `${job.entryPoint} task ${task.taskId} ended ${task.state ?? 'without a state'}${said ? `: ${said}` : ''}`,
        evidence,
      );
  }
}
