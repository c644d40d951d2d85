// The store stage (input option `store`): after the video succeeded, one activity copies it to the
// worker's VIDEO_STORE. Whatever goes wrong here ends the run as VideoStoreFailed: the video task is done
// and is never created again for it.
import { ApplicationFailure, isCancellation, proxyActivities } from '@temporalio/workflow';
import { videoStoreFailed, type StoreActivities } from '../contract/index.js';
import { FailureType } from '../model/failure-types.js';
import type { StoredVideo } from '../model/stored-video.js';
import type { Timing } from '../job/input.js';
import type { RunState } from './run-state.js';

/** Bounds one attempt that still heartbeats; a stalled body fails sooner (the activity's body time-out). */
const STORE_ATTEMPT_TIMEOUT = '2h';

/**
 * A few attempts: a reset or a worker lost mid-stream restarts the copy (the activity discards what the
 * attempt left). Heartbeats come every second, so a lost worker is noticed within the heartbeat time-out.
 */
function storeActivities(timing: Timing) {
  return proxyActivities<StoreActivities>({
    startToCloseTimeout: STORE_ATTEMPT_TIMEOUT,
    heartbeatTimeout: Math.max(Math.min(timing.callTimeoutMs, 30_000), 2_000),
    retry: {
      initialInterval: '1s',
      backoffCoefficient: 2,
      maximumInterval: '30s',
      maximumAttempts: 5,
      nonRetryableErrorTypes: [FailureType.VideoStoreFailed],
    },
  });
}

export async function storeVideo(
  timing: Timing,
  run: RunState,
  workflowId: string,
  taskId: string,
  videoUrl: string | undefined,
): Promise<StoredVideo> {
  run.setStage('storing');
  try {
    return await storeActivities(timing).rtgStoreVideo.executeWithOptions(
      { summary: `store video of task ${taskId}` },
      [{ workflowId, taskId, videoUrl }],
    );
  } catch (err) {
    if (isCancellation(err)) throw err;
    const cause = err instanceof ApplicationFailure ? err : (err as { cause?: unknown }).cause;
    const message = cause instanceof Error ? cause.message : err instanceof Error ? err.message : String(err);
    throw videoStoreFailed(`the video of task ${taskId} was generated but could not be stored: ${message}`, {
      taskId,
      videoUrl,
      lastError: message,
    });
  }
}
