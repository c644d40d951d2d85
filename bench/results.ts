// The shape of bench/results/<name>.json. Every figure carries its unit.
import type { MachineInfo } from './lib/machine.js';
import type { ApiCalls, CallbackLatency } from './lib/sandbox-metrics.js';
import type { HistorySample } from './lib/histories.js';
import type { ServerActions } from './lib/server-actions.js';
import type { CachedWorkflowMemory, MemoryPoint } from './lib/cache-memory.js';
import type { Summary } from './lib/stats.js';
import type { HttpVariantResult } from './http/main.js';
import type { Mode, Profile, ProfileName } from './profiles.js';
import type { WorkerConfigDef } from './lib/harness.js';

export interface Figure {
  value: number;
  unit: string;
}

export type SummaryFigure = Summary & { unit: string };

export function fig(value: number, unit: string, digits = 2): Figure {
  const f = 10 ** digits;
  return { value: Number.isFinite(value) ? Math.round(value * f) / f : value, unit };
}

export function sfig(s: Summary, unit: string): SummaryFigure {
  return { ...s, unit };
}

export type RunKind = 'ours' | 'trivial' | 'peer';

export interface RunResult {
  label: string;
  kind: RunKind;
  mode?: Mode;
  profile?: ProfileName;
  concurrency: number;
  workerConfig?: string;
  jobs: number;
  completed: number;
  failed: number;
  timedOut: boolean;
  /** First start to last completion. */
  wall: Figure;
  throughput: Figure;
  /** Client time to issue every start. */
  startPhase?: Figure;
  /** Per job, start to completion. */
  latency: SummaryFigure;
  apiCalls?: ApiCalls & { unit: 'calls' };
  callbackLatency?: CallbackLatency & { unit: 'ms' };
  historyEvents?: SummaryFigure;
  historySample?: HistorySample;
  /** The dev server's `action` counter over the run, per job (a cross-check of historySample.cost). */
  serverActions?: ServerActions;
  activitySlots?: {
    meanRunning: Figure;
    peakRunning: Figure;
    meanJobsInFlight: Figure;
    /** Mean running activities per job in flight. */
    perJobInFlight: Figure;
  };
  cpu?: { worker?: Figure; server?: Figure; harness?: Figure; peer?: Figure };
  memory?: { workerPeakRss?: Figure; workerPeakCachedWorkflows?: Figure; peerPeakRss?: Figure };
  errors?: string[];
}

export interface WaitingResult {
  /** Jobs asked for, and jobs that were waiting when measured (fewer when the time budget ran out). */
  target: number;
  jobs: number;
  mode: Mode;
  /** Polling mode: the video poll interval while waiting. */
  pollIntervalMs?: Figure;
  allWaiting: boolean;
  /** Time to start them all and have every one submit its review. */
  rampSeconds: Figure;
  workerRssIdle: Figure;
  workerRssWaiting: Figure;
  workerRssPerWaitingJob: Figure;
  /** RSS growth per waiting job (least squares over the checkpoints) and RSS at the target by that slope. */
  rssSlope: Figure;
  rssAtTarget: Figure;
  cachedWorkflows: Figure;
  checkpoints: Array<MemoryPoint & { atSeconds: number }>;
  /** The V8 heaps of the idle worker (absent in older results). */
  idleHeap?: MemoryPoint['heap'];
  /** What one cached workflow costs, and of what (bench/lib/cache-memory.ts). */
  perCachedWorkflow?: CachedWorkflowMemory;
  /** The worker's sticky cache size (maxCachedWorkflows, explicit or the SDK's default) and V8 heap limit. */
  maxCachedWorkflows: Figure;
  heapLimit: Figure;
  /** Sampled over `window` while every job waits. */
  window: Figure;
  samples: number;
  runningActivities: { mean: Figure; max: Figure; zeroShare: Figure };
  apiCallsDuringWindow: Figure;
  workerConfig: string;
}

export interface TuningRun {
  config: string;
  def: WorkerConfigDef;
  run: RunResult;
}

export interface HistoryIndependence {
  mode: Mode;
  reviewMs: number;
  videoMs: number;
  jobs: number;
  apiCallsPerJob: Figure;
  historyEvents: SummaryFigure;
}

export interface BenchResults {
  name: string;
  command: string;
  /** The git commit measured (`-dirty` if the work tree had changes); absent in results before 0.3.0. */
  commit?: string;
  quick: boolean;
  startedAt: string;
  finishedAt: string;
  wallTime: Figure;
  machine: MachineInfo;
  serverCpuAvailable: boolean;
  profiles: Profile[];
  levels: number[];
  workerConfigs: Record<string, WorkerConfigDef>;
  mainWorkerConfig: string;
  runs: RunResult[];
  tuning: TuningRun[];
  /** The same burst without and with metrics and tracing, in rounds (older results have none). */
  observability?: Array<TuningRun & { round: number }>;
  /** What the traced workers of that phase exported (the sink's count): proof that tracing was on. */
  otlpReceived?: { requests: number; bytes: number };
  historyIndependence: HistoryIndependence[];
  waiting: WaitingResult[];
  http: Array<{ profile: ProfileName; variants: HttpVariantResult[] }>;
  budget: Figure;
  /** Runs of the plan that were not made because they would not have fitted in the budget. */
  skipped: Array<{ run: string; concurrency: number; estimate: Figure }>;
  /** Scenarios and runs that failed (the others still ran). */
  notes: string[];
}
