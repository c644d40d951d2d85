// What the store activity needs from a place that keeps videos (a local folder, an S3 bucket).
import type { Readable } from 'node:stream';
import type { StoredVideo } from '../model/stored-video.js';

/** Written next to each video once its bytes are in place: lets a retry recognise a finished copy. */
export interface StoreManifest {
  bytes: number;
  sha256: string;
  contentType: string;
  /** S3: the ETag of the object the manifest describes (an overwrite changes it). */
  etag?: string;
}

export interface VideoStore {
  /** `file:///dir` or `s3://bucket/prefix`, for messages and results. */
  readonly location: string;
  /** The complete copy at `key` whose size and hash match its manifest, if there is one. */
  find(key: string): Promise<StoredVideo | undefined>;
  /** Removes what an interrupted attempt left for `key` (temporary files, open multipart uploads). */
  discardPartial(key: string): Promise<void>;
  /**
   * Streams `body` to `key` under a temporary name or as an open multipart upload, and makes it visible
   * under `key` in one atomic step only after `body` ended without error; `manifest()` is read then.
   */
  put(key: string, body: Readable, contentType: string, manifest: () => StoreManifest): Promise<StoredVideo>;
  close(): Promise<void>;
}
