// Where a finished job's video is, as `submit --wait` and `status` print it: the video's address, and the
// stored copy (VIDEO_STORE) when the job asked for one.
import type { ReviewThenGenerateResult } from '../job/definitions.js';

/** A job's result: the video's address, and its stored copy when the job asked for one. */
export function whereTheVideoIs(result: ReviewThenGenerateResult): string[] {
  const { stored } = result;
  return [
    `video: ${result.videoUrl ?? '(no URL)'} (video task ${result.taskId})`,
    ...(stored ? [`stored: ${stored.url} (${stored.bytes} bytes, sha256 ${stored.sha256})`] : []),
  ];
}
