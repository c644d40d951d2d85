// What the benchmark parent and its worker process tell each other (Node IPC messages).
import type { WorkerOptions } from '@temporalio/worker';

/** Worker options a benchmark may vary (the rest are fixed by the harness). */
export type TunableWorkerOptions = Pick<
  WorkerOptions,
  | 'maxConcurrentActivityTaskExecutions'
  | 'maxConcurrentWorkflowTaskExecutions'
  | 'maxConcurrentActivityTaskPolls'
  | 'maxConcurrentWorkflowTaskPolls'
  | 'workflowTaskPollerBehavior'
  | 'activityTaskPollerBehavior'
  | 'maxCachedWorkflows'
  | 'workflowThreadPoolSize'
  | 'stickyQueueScheduleToStartTimeout'
  | 'maxEagerActivityReservationsPerWorkflowTask'
>;

/** Metrics and traces in the worker, as PROMETHEUS_BIND_ADDRESS and the OTEL_* variables turn them on. */
export interface WorkerObservability {
  /** The SDK's and our metrics on a Prometheus endpoint, scraped while the worker runs. */
  metrics?: boolean;
  /** Traces sampled at this ratio (parentbased_traceidratio), exported over OTLP/HTTP to otlpEndpoint. */
  tracingRatio?: number;
  otlpEndpoint?: string;
}

export interface WorkerConfig {
  address: string;
  namespace: string;
  taskQueue: string;
  bundlePath: string;
  video: { baseUrl: string; apiKey: string };
  review: { baseUrl: string; accessToken: string };
  callbacks: { publicUrl: string; secret: string };
  httpTimeoutMs: number;
  options: TunableWorkerOptions;
  /** Node flags for the worker process. */
  nodeArgs: string[];
  /** Sampling period of the gauges, ms. */
  sampleEveryMs: number;
  /** Off when unset, as in our worker without PROMETHEUS_BIND_ADDRESS and OTEL_*. */
  observability?: WorkerObservability;
}

export interface WorkerSample {
  /** ms epoch */
  t: number;
  /** Activities executing (counted around each activity function). */
  running: number;
  /** The SDK's own count of in-flight activity tasks (cross-check). */
  inFlightActivities: number;
  inFlightWorkflowActivations: number;
  cachedWorkflows: number;
  rssBytes: number;
}

/** Where the worker's memory is, in bytes: the V8 heaps of the main thread and of the workflow thread(s). */
export interface MemoryReading {
  rssBytes: number;
  mainHeapUsed: number;
  mainHeapTotal: number;
  threadHeapUsed: number;
  threadHeapTotal: number;
  /** Outside the V8 heaps but known to V8 (Buffers, ArrayBuffers), main thread and workflow threads. */
  external: number;
  cachedWorkflows: number;
}

export type ParentMessage = { type: 'samples'; since: number } | { type: 'memory' } | { type: 'stop' };

export type ChildMessage =
  | { type: 'ready'; pid: number; rssBytes: number; maxCachedWorkflows: number; heapLimitBytes: number }
  | {
      type: 'samples';
      samples: WorkerSample[];
      cpuMicros: { user: number; system: number };
      activitiesStarted: number;
      peakRunning: number;
    }
  | ({ type: 'memory' } & MemoryReading)
  | { type: 'stopped' }
  | { type: 'error'; message: string };
