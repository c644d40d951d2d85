// The typed configuration that src/config/ reads from the environment, and that the clients, the
// worker and the plugin take as explicit options.
export type TemporalConfig = {
  address: string;
  namespace: string;
  taskQueue: string;
};

export type VideoServiceConfig = {
  baseUrl: string;
  apiKey: string;
  cancelMethod: 'POST' | 'DELETE' | 'PUT' | 'PATCH' | 'GET';
  cancelPath: string;
  timeoutMs: number;
  /** Connections of the client's pool (default SERVICE_DEFAULTS.connections): requests beyond it wait for a free one. */
  connections?: number;
  /** Accept loopback/private/link-local media and callback addresses (ALLOW_PRIVATE_URLS; default false). */
  allowPrivateUrls?: boolean;
};

export type ReviewServiceConfig = {
  baseUrl: string;
  accessToken: string;
  timeoutMs: number;
  /** Connections of the client's pool (default SERVICE_DEFAULTS.connections): requests beyond it wait for a free one. */
  connections?: number;
  /** Accept loopback/private/link-local media and callback addresses (ALLOW_PRIVATE_URLS; default false). */
  allowPrivateUrls?: boolean;
};

/** The Worker.create options set from the environment; absent ones keep the SDK's defaults. */
export type WorkerTuning = {
  maxCachedWorkflows?: number;
  maxConcurrentWorkflowTaskExecutions?: number;
  maxConcurrentActivityTaskExecutions?: number;
};

/** Worker Deployment versioning (docs/upgrading.md): the worker's version and its runs' default behaviour. */
export type WorkerDeployment = {
  deploymentName: string;
  buildId: string;
  /** PINNED: a run finishes on the build that started it. AUTO_UPGRADE: it moves to the current build. */
  defaultVersioningBehavior: 'PINNED' | 'AUTO_UPGRADE';
};

export type CallbackConfig = {
  /** Public base address of the receiver; undefined = polling only. */
  publicUrl: string | undefined;
  /** CALLBACK_SECRET's keys, newest first: the first signs, every one verifies. */
  secret: readonly string[] | undefined;
  host: string;
  port: number;
};

/** VIDEO_STORE: where finished videos are copied (unset = nowhere). */
export type VideoStoreConfig =
  | { kind: 'file'; dir: string }
  /** S3 or S3-compatible storage, reached through the standard AWS variables and credential chain. */
  | { kind: 's3'; bucket: string; prefix: string };

/** PAYLOAD_ENCRYPTION_KEYS or PAYLOAD_ENCRYPTION_KEYS_FILE (at most one is set); neither = no encryption. */
export type EncryptionConfig = {
  /** `id:base64key,...`: the first key encrypts, every key decrypts. */
  keys: string | undefined;
  /** A file of the same entries, one a line or comma separated. */
  keysFile: string | undefined;
};

/** `npm run codec-server`: the Web UI's remote codec endpoint. */
export type CodecServerConfig = {
  host: string;
  port: number;
  /** Browser origins (the Web UI's) allowed to call it; any other origin is refused. */
  corsOrigins: string[];
  /** When set, every /encode and /decode needs `Authorization: Bearer <token>`. */
  authToken: string | undefined;
};
