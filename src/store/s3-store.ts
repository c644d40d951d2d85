// VIDEO_STORE=s3://bucket/prefix: each video streamed as a multipart upload (@aws-sdk/lib-storage), which
// S3 makes visible under its key only when the upload is completed: an interrupted upload leaves parts of
// an open upload, never an object. Then `<key>.manifest.json` records the size, hash and ETag.
import {
  AbortMultipartUploadCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { Readable } from 'node:stream';
import type { StoredVideo } from '../model/stored-video.js';
import type { StoreManifest, VideoStore } from './types.js';

type Env = Record<string, string | undefined>;

/** Parts of 8 MiB, 4 at a time: at most 32 MiB of the video in memory, whatever its size. */
const PART_SIZE = 8 * 1024 * 1024;
const QUEUE_SIZE = 4;

/**
 * The SDK's own resolution (AWS_REGION, AWS_ENDPOINT_URL_S3 / AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID,
 * profiles, instance roles...) reads process.env; the values of an explicit `env` are passed on. A custom
 * endpoint (MinIO, moto, R2...) is addressed path-style, which every S3-compatible server accepts.
 */
export function s3ClientConfig(env: Env): S3ClientConfig {
  const endpoint = env.AWS_ENDPOINT_URL_S3 || env.AWS_ENDPOINT_URL;
  const region = env.AWS_REGION || env.AWS_DEFAULT_REGION;
  const credentials =
    env.AWS_ACCESS_KEY_ID && env.AWS_SECRET_ACCESS_KEY
      ? {
          accessKeyId: env.AWS_ACCESS_KEY_ID,
          secretAccessKey: env.AWS_SECRET_ACCESS_KEY,
          ...(env.AWS_SESSION_TOKEN ? { sessionToken: env.AWS_SESSION_TOKEN } : {}),
        }
      : undefined;
  return {
    ...(region ? { region } : {}),
    ...(endpoint ? { endpoint, forcePathStyle: true } : {}),
    ...(credentials ? { credentials } : {}),
  };
}

const isNotFound = (err: unknown) => {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e?.name === 'NotFound' || e?.name === 'NoSuchKey' || e?.$metadata?.httpStatusCode === 404;
};

export class S3VideoStore implements VideoStore {
  readonly location: string;
  readonly #client: S3Client;

  constructor(
    private readonly bucket: string,
    private readonly prefix: string,
    config: S3ClientConfig,
  ) {
    this.location = `s3://${bucket}${prefix ? `/${prefix}` : ''}`;
    this.#client = new S3Client(config);
  }

  #key(key: string): string {
    return this.prefix ? `${this.prefix}/${key}` : key;
  }

  #stored(key: string, m: StoreManifest): StoredVideo {
    return {
      url: `s3://${this.bucket}/${this.#key(key)}`,
      bytes: m.bytes,
      sha256: m.sha256,
      contentType: m.contentType,
    };
  }

  async find(key: string): Promise<StoredVideo | undefined> {
    const Key = this.#key(key);
    try {
      const [head, manifest] = await Promise.all([
        this.#client.send(new HeadObjectCommand({ Bucket: this.bucket, Key })),
        this.#client
          .send(new GetObjectCommand({ Bucket: this.bucket, Key: `${Key}.manifest.json` }))
          .then(async (r) => JSON.parse((await r.Body?.transformToString()) ?? '') as StoreManifest),
      ]);
      // The manifest describes this very object: same size, same ETag (an overwrite would change it).
      if (head.ContentLength !== manifest.bytes || (manifest.etag && head.ETag !== manifest.etag)) return undefined;
      return this.#stored(key, manifest);
    } catch (err) {
      if (isNotFound(err) || err instanceof SyntaxError) return undefined;
      throw err;
    }
  }

  async discardPartial(key: string): Promise<void> {
    const Key = this.#key(key);
    const listed = await this.#client.send(new ListMultipartUploadsCommand({ Bucket: this.bucket, Prefix: Key }));
    for (const u of listed.Uploads ?? []) {
      if (u.Key !== Key || !u.UploadId) continue;
      await this.#client.send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key, UploadId: u.UploadId }));
    }
  }

  async put(key: string, body: Readable, contentType: string, manifest: () => StoreManifest): Promise<StoredVideo> {
    const Key = this.#key(key);
    const upload = new Upload({
      client: this.#client,
      params: { Bucket: this.bucket, Key, Body: body, ContentType: contentType },
      partSize: PART_SIZE,
      queueSize: QUEUE_SIZE,
      leavePartsOnError: false,
    });
    // A body that fails (reset, wrong length) rejects the upload, which is then aborted: no object.
    const failed = new Promise<never>((_, reject) => body.once('error', reject));
    const done = await Promise.race([upload.done(), failed]).catch(async (err: unknown) => {
      await upload.abort().catch(() => undefined);
      throw err;
    });
    const m: StoreManifest = { ...manifest(), contentType, ...(done.ETag ? { etag: done.ETag } : {}) };
    await this.#client.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: `${Key}.manifest.json`,
        Body: JSON.stringify(m),
        ContentType: 'application/json',
      }),
    );
    return this.#stored(key, m);
  }

  async close(): Promise<void> {
    this.#client.destroy();
  }
}
