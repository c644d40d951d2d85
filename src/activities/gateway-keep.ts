// rtgKeepGatewayVideo: a succeeded gateway task whose record names no URL (OpenAI's /v1/videos object:
// its file is served to the key at GET /v1/videos/{id}/content) is downloaded into VIDEO_STORE, so that
// GenerateAndPoll ends with the video kept or with a typed failure, never a success without a URL.
import { generationFailed, videoStoreFailed, type GatewayKeepInput } from '../contract/index.js';
import { TASK_ADAPTERS } from '../model/video/gateway-adapters.js';
import { videoKey, type StoredVideo } from '../model/stored-video.js';
import type { VideoClient } from '../services/video/client.js';
import type { VideoStore } from '../store/types.js';
import { toApplicationFailure } from './service-failures.js';
import { putDownload } from './store-video.js';

/**
 * Downloads the result with the key (the adapter's `resultDownload`) into the store, one object per run
 * and task, so a retried attempt finds the complete copy. VideoStoreFailed without a store,
 * GenerationFailed where the entry point has no such download.
 */
export async function keepGatewayVideo(
  deps: { video: VideoClient; store?: VideoStore | undefined },
  input: GatewayKeepInput,
): Promise<StoredVideo> {
  const evidence = { taskId: input.taskId, entryPoint: input.entryPoint };
  if (TASK_ADAPTERS[input.entryPoint].resultDownload !== 'videoContent') {
    throw generationFailed(`${input.entryPoint} task ${input.taskId} succeeded, but its record names no result URL`, {
      ...evidence,
      state: undefined,
      error: undefined,
      record: undefined,
    });
  }
  const store = deps.store;
  if (!store) {
    throw videoStoreFailed(
      `${input.entryPoint} task ${input.taskId} succeeded; its video has no public URL and is served only ` +
        `to the API key (GET /v1/videos/{id}/content), but this worker has no VIDEO_STORE to keep it in`,
      evidence,
    );
  }
  const key = videoKey(input.workflowId, input.taskId);
  const done = await store.find(key);
  if (done) return done;
  await store.discardPartial(key);
  try {
    return await putDownload(store, key, await deps.video.videoContent(input.taskId));
  } catch (err) {
    throw toApplicationFailure(err, 'video.query');
  }
}
