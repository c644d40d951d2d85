// rtgStoreVideo: copies a finished video to VIDEO_STORE (issue 18). It streams (no whole-file buffer),
// heartbeats the bytes done, and keeps one object per run and task: the key comes from the workflow id and
// task id, a complete copy found there is the answer, and what an interrupted attempt left is discarded
// before the copy starts again. An expired address (403/410) is replaced once by a fresh one from a query.
import { Context } from '@temporalio/activity';
import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { Transform, type Readable } from 'node:stream';
import { request, type Dispatcher } from 'undici';
import { videoKey, type StoredVideo } from '../model/stored-video.js';
import { videoStoreFailed, type StoreActivities, type StoreVideoInput } from '../contract/index.js';
import type { VideoClient } from '../services/video/client.js';
import type { StoreManifest, VideoStore } from '../store/types.js';

/** The heartbeat details: how far this attempt got. */
export interface StoreProgress {
  bytesDone: number;
  totalBytes: number | undefined;
}

const HEARTBEAT_EVERY_MS = 1_000;

/** Hashes and counts what passes through, and fails the stream if it ends short of the announced length. */
function digestStream(expected: number | undefined, onBytes: (n: number) => void) {
  const hash = createHash('sha256');
  let bytes = 0;
  const stream = new Transform({
    transform(chunk: Buffer, _enc, done) {
      hash.update(chunk);
      bytes += chunk.length;
      onBytes(bytes);
      done(null, chunk);
    },
    flush(done) {
      if (expected !== undefined && bytes !== expected)
        return done(new Error(`the video body ended after ${bytes} of ${expected} bytes`));
      done();
    },
  });
  return { stream, manifest: (): Omit<StoreManifest, 'contentType'> => ({ bytes, sha256: hash.digest('hex') }) };
}

/**
 * Streams a download's body into the store under `key`, heartbeating the bytes done on a timer; the copy
 * is checked against the announced length and its hash recorded in the manifest. Shared by every
 * activity that keeps a video (the native task's URL, the /v1/videos content download).
 */
export async function putDownload(
  store: VideoStore,
  key: string,
  res: { headers: IncomingHttpHeaders; body: Readable },
): Promise<StoredVideo> {
  const ctx = Context.current();
  const length = Number(res.headers['content-length']);
  const totalBytes = Number.isSafeInteger(length) && length >= 0 ? length : undefined;
  const contentType =
    String(res.headers['content-type'] ?? 'video/mp4')
      .split(';')[0]!
      .trim() || 'video/mp4';
  // Heartbeats on a timer, not per chunk: while an upload part is in flight no byte moves, and the
  // heartbeat says that the worker is alive (a stalled download fails on its own body time-out).
  let bytesDone = 0;
  const beat = () => ctx.heartbeat({ bytesDone, totalBytes } satisfies StoreProgress);
  beat();
  const timer = setInterval(beat, HEARTBEAT_EVERY_MS);
  const digest = digestStream(totalBytes, (n) => (bytesDone = n));
  const body = res.body.pipe(digest.stream);
  res.body.once('error', (err) => digest.stream.destroy(err));
  const stored = await store
    .put(key, body, contentType, () => ({ ...digest.manifest(), contentType }))
    .catch((err: unknown) => {
      res.body.destroy(); // a failed write releases the download's connection too
      throw err;
    })
    .finally(() => clearInterval(timer));
  ctx.heartbeat({ bytesDone: stored.bytes, totalBytes } satisfies StoreProgress);
  return stored;
}

export function createStoreActivities(deps: { video: VideoClient; store?: VideoStore | undefined }): StoreActivities {
  async function freshUrl(taskId: string, why: string): Promise<string> {
    let task;
    try {
      task = await deps.video.getTask(taskId);
    } catch (err) {
      throw videoStoreFailed(
        `the video address of task ${taskId} ${why}, and asking the video service for a fresh one failed: ${err instanceof Error ? err.message : String(err)}`,
        { taskId },
      );
    }
    if (task.status !== 'succeeded' || !task.videoUrl)
      throw videoStoreFailed(
        `the video address of task ${taskId} ${why}, and the video service gave no fresh one (task ${task.rawStatus ?? task.status})`,
        { taskId, status: task.rawStatus },
      );
    return task.videoUrl;
  }

  async function open(input: StoreVideoInput, signal: AbortSignal): Promise<Dispatcher.ResponseData> {
    let url = input.videoUrl ?? (await freshUrl(input.taskId, 'was not in the task record'));
    for (let refreshed = input.videoUrl === undefined; ; refreshed = true) {
      const res = await request(url, { method: 'GET', signal, headersTimeout: 30_000, bodyTimeout: 60_000 });
      if (res.statusCode === 200) return res;
      await res.body.dump();
      const status = res.statusCode;
      if (status !== 403 && status !== 410) {
        // 404, 5xx: the attempt fails and the retry policy tries again.
        throw new Error(`the video address of task ${input.taskId} answered HTTP ${status}`);
      }
      if (refreshed)
        throw videoStoreFailed(
          `the video address of task ${input.taskId} answered HTTP ${status} (expired), and so did the fresh address the video service gave`,
          { taskId: input.taskId, status },
        );
      url = await freshUrl(input.taskId, `answered HTTP ${status} (expired)`);
    }
  }

  return {
    async rtgStoreVideo(input: StoreVideoInput): Promise<StoredVideo> {
      const store = deps.store;
      if (!store)
        throw videoStoreFailed('the job asked to store its video, but this worker has no VIDEO_STORE', {
          taskId: input.taskId,
        });
      const ctx = Context.current();
      const key = videoKey(input.workflowId, input.taskId);
      const done = await store.find(key);
      if (done) return done;
      const previous = ctx.info.heartbeatDetails as StoreProgress | undefined;
      if (previous) ctx.log.info('restarting the copy of an interrupted attempt', { key, ...previous });
      await store.discardPartial(key);

      const res = await open(input, ctx.cancellationSignal);
      return putDownload(store, key, res);
    },
  };
}
