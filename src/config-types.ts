// The typed configuration that src/config.ts reads from the environment, and that the clients, the
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

export type CallbackConfig = {
  /** Public base address of the receiver; undefined = polling only. */
  publicUrl: string | undefined;
  secret: string | undefined;
  host: string;
  port: number;
};

/** VIDEO_STORE: where finished videos are copied (unset = nowhere). */
export type VideoStoreConfig =
  | { kind: 'file'; dir: string }
  /** S3 or S3-compatible storage, reached through the standard AWS variables and credential chain. */
  | { kind: 's3'; bucket: string; prefix: string };
