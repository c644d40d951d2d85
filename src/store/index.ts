// The video stores behind VIDEO_STORE, made from their configuration.
import type { VideoStoreConfig } from '../config/types.js';
import { FileVideoStore } from './file-store.js';
import { S3VideoStore, s3ClientConfig } from './s3-store.js';
import type { VideoStore } from './types.js';

export { describeVideoStore, loadVideoStoreConfig, parseVideoStore } from './config.js';
export { FileVideoStore } from './file-store.js';
export { S3VideoStore, s3ClientConfig } from './s3-store.js';
export type { StoreManifest, VideoStore } from './types.js';

/** The store of a VIDEO_STORE setting; `env` supplies the AWS variables of an S3 store. */
export function createVideoStore(
  config: VideoStoreConfig,
  env: Record<string, string | undefined> = process.env,
): VideoStore {
  return config.kind === 'file'
    ? new FileVideoStore(config.dir)
    : new S3VideoStore(config.bucket, config.prefix, s3ClientConfig(env));
}
