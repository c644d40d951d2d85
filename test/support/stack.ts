// A complete stack for workflow tests: the sandbox (both services over HTTP), the callback receiver and the
// clients as every stack assembles them (services-stack.ts), and a real worker, on the run's Temporal dev
// server. Everything on free ports.
import { randomUUID } from 'node:crypto';
import type { WorkflowHandle } from '@temporalio/client';
import { bundleWorkflowCode, type WorkflowBundlePath, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { createActivities, type Activities, type ActivitySettings } from '../../src/activities/index.js';
import { callbackUrlSecrets } from '../../src/callback-signing.js';
import { loadAdmissionConfig, type AdmissionSettings } from '../../src/config/admission.js';
import type { NotifySettings } from '../../src/config/notify.js';
import type { CallbackServer } from '../../src/callbacks/server.js';
import type { Sandbox, SandboxOptions } from 'temporal-review-video-sandbox';
import { ReviewClient } from '../../src/services/review/client.js';
import { VideoClient } from '../../src/services/video/client.js';
import type { ReviewThenGenerateInput } from '../../src/job/input.js';
import type { ReviewThenGenerate } from '../../src/workflows/review-then-generate.js';
import type { GenerateAndPoll } from '../../src/workflows/generate-and-poll.js';
import type { GenerateAndPollInput } from '../../src/job/generate-and-poll-input.js';
import { workflowsPath } from '../../src/workflows-path.js';
import { afterAll, beforeAll, expect, inject } from 'vitest';
import {
  assertNoSecretsInHistories,
  replayHistories,
  startWorker,
  temporalAddress,
  testClient,
  type RunningWorker,
} from './temporal.js';
import { receiverEnv, sandboxServiceEnv, startServicesStack, type CallbackOutcome } from './services-stack.js';
import { startWorkerProcess, type WorkerProcess } from './worker-process.js';

export type { CallbackOutcome } from './services-stack.js';

/**
 * The workflow code as our worker bundles it (our modules preloaded), bundled once per run by the
 * global set-up (test/support/global-setup.ts): webpack is the slow part of starting a worker.
 */
export function workflowBundle(): WorkflowBundlePath {
  return { codePath: inject('workflowBundlePath') };
}

let withoutPreload: Promise<WorkflowBundleWithSourceMap> | undefined;
/** A user's worker that only sets workflowsPath: nothing preloaded (the one file that needs it bundles it). */
function workflowBundleWithoutPreload(): Promise<WorkflowBundleWithSourceMap> {
  const quiet = { log() {}, info() {}, warn() {}, error() {}, debug() {}, trace() {} };
  withoutPreload ??= bundleWorkflowCode({ workflowsPath, logger: quiet });
  return withoutPreload;
}

export interface StackOptions {
  sandbox?: SandboxOptions;
  httpTimeoutMs?: number;
  /** Wraps the activities given to the worker (used by crash tests). */
  wrapActivities?: (a: Activities) => Activities;
  /** Run no worker in this process (a test starts its own, e.g. in a child process). */
  noWorker?: boolean;
  /** false: the worker's bundle does not preload our modules (default true, as our worker). */
  preload?: boolean;
  /**
   * false: the workers have no callback address (a worker without CALLBACK_PUBLIC_URL: polling only).
   * The receiver still runs, so a test can see that nothing calls it. Default true.
   */
  callbackAddress?: boolean;
  /** Worker processes (`src/worker.ts` in child processes) on the same task queue, besides the in-process one. */
  workerProcesses?: number;
  /** The workers' admission variables (VIDEO_MAX_TASKS_IN_FLIGHT...), for every worker of the stack. */
  admissionEnv?: Record<string, string>;
  /** The in-process worker's admission settings instead (for what no variable sets, e.g. a short window). */
  admission?: AdmissionSettings;
  /** The in-process worker's webhook settings (NOTIFY_*); read at each call, so a test may change them. */
  notify?: NotifySettings;
}

export interface Stack {
  sandbox: Sandbox;
  receiver: CallbackServer;
  /** What the receiver did with each callback, in arrival order. */
  callbackOutcomes: CallbackOutcome[];
  worker: RunningWorker | undefined;
  /** Starts (another) in-process worker on the stack's task queue. */
  startWorker(): Promise<RunningWorker>;
  workerProcesses: WorkerProcess[];
  taskQueue: string;
  secret: string;
  clients: { video: VideoClient; review: ReviewClient };
  /** The same services and callback address as settings, for a worker built through the plugin. */
  activitySettings: ActivitySettings;
  start(input: ReviewThenGenerateInput, workflowId?: string): Promise<WorkflowHandle<typeof ReviewThenGenerate>>;
  /** A GenerateAndPoll job on the stack's worker; its history is replayed and scanned like the others. */
  startGenerateAndPoll(
    input: GenerateAndPollInput,
    workflowId?: string,
  ): Promise<WorkflowHandle<typeof GenerateAndPoll>>;
  handles: WorkflowHandle[];
  stop(): Promise<void>;
}

/** Test timings: short, but with the same relations as production (fallback polling slower than callbacks). */
export const fastTiming = {
  reviewMinQueryIntervalMs: 300,
  videoPollIntervalMs: 300,
  reviewTimeoutMs: 60_000,
  generationTimeoutMs: 60_000,
  createAmbiguityGraceMs: 3_000,
  callbackFallbackPollMs: 20_000,
  callTimeoutMs: 10_000,
};

export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const client = await testClient();
  const callbackOutcomes: CallbackOutcome[] = [];
  const services = await startServicesStack(client, {
    ...(options.sandbox ? { sandbox: options.sandbox } : {}),
    ...(options.httpTimeoutMs ? { timeoutMs: options.httpTimeoutMs } : {}),
    onOutcome: (o) => callbackOutcomes.push(o),
  });
  const { sandbox, receiver, secret, clients, timeoutMs } = services;
  const callbacks = options.callbackAddress === false ? undefined : { publicUrl: receiver.url, secret };
  // The in-process worker reads the same variables as the worker processes, with the same quota key.
  const admission =
    options.admission ??
    loadAdmissionConfig(options.admissionEnv ?? {}, {
      video: sandbox.videoBaseUrl,
      review: sandbox.reviewBaseUrl,
    });
  const activities = createActivities({ ...clients, callbacks, admission, notify: options.notify });
  const taskQueue = `rtg-${randomUUID()}`;
  const workers: RunningWorker[] = [];
  const launch = async () => {
    const w = await startWorker({
      taskQueue,
      workflowBundle: options.preload === false ? await workflowBundleWithoutPreload() : workflowBundle(),
      activities: options.wrapActivities ? options.wrapActivities(activities) : activities,
    });
    workers.push(w);
    return w;
  };
  const worker = options.noWorker ? undefined : await launch();
  const processes = await Promise.all(
    Array.from({ length: options.workerProcesses ?? 0 }, () =>
      startWorkerProcess({
        TEMPORAL_ADDRESS: temporalAddress(),
        TEMPORAL_NAMESPACE: inject('temporalNamespace'),
        TEMPORAL_TASK_QUEUE: taskQueue,
        ...sandboxServiceEnv(sandbox),
        HTTP_TIMEOUT_MS: String(timeoutMs),
        ...(callbacks ? receiverEnv(services) : {}),
        ...options.admissionEnv,
      }),
    ),
  );
  const handles: WorkflowHandle[] = [];
  return {
    sandbox,
    receiver,
    callbackOutcomes,
    worker,
    startWorker: launch,
    taskQueue,
    secret,
    clients,
    activitySettings: {
      services: {
        video: { baseUrl: sandbox.videoBaseUrl, apiKey: sandbox.apiKey, timeoutMs, allowPrivateUrls: true },
        review: { baseUrl: sandbox.reviewBaseUrl, accessToken: sandbox.accessToken, timeoutMs, allowPrivateUrls: true },
      },
      callbacks,
      admission,
    },
    handles,
    async start(input, workflowId = `rtg-test-${randomUUID()}`) {
      const handle = await client.workflow.start<typeof ReviewThenGenerate>('ReviewThenGenerate', {
        taskQueue,
        workflowId,
        args: [input],
      });
      handles.push(handle);
      return handle;
    },
    async startGenerateAndPoll(input, workflowId = `gap-test-${randomUUID()}`) {
      const handle = await client.workflow.start<typeof GenerateAndPoll>('GenerateAndPoll', {
        taskQueue,
        workflowId,
        args: [input],
      });
      handles.push(handle);
      return handle;
    },
    workerProcesses: processes,
    async stop() {
      for (const w of workers) await w.stop();
      await Promise.all(processes.map((p) => p.stop()));
      await services.close();
    },
  };
}

/** A job with one image to review and a prompt. */
export function imageJob(
  imageUrl = 'https://cdn.example.com/people/alice.jpg',
  extra: Partial<ReviewThenGenerateInput> = {},
): ReviewThenGenerateInput {
  return {
    task: {
      model: 'video-model-1',
      content: [
        { type: 'text', text: 'A person walks along the beach at sunset' },
        { type: 'image_url', image_url: { url: imageUrl }, role: 'reference_image' },
      ],
      ratio: '16:9',
      duration: 5,
      resolution: '720p',
    },
    review: {},
    callbacks: true,
    timing: fastTiming,
    ...extra,
  };
}

/** A job with a prompt only (nothing to review): its video create is the job's one call to a service. */
export function textJob(prompt: string, extra: Partial<ReviewThenGenerateInput> = {}): ReviewThenGenerateInput {
  return {
    task: { model: 'video-model-1', content: [{ type: 'text', text: prompt }], duration: 5 },
    timing: fastTiming,
    ...extra,
  };
}

/** When the sandbox received each video create, earliest first. */
export function videoCreateTimes(sandbox: Sandbox): number[] {
  return sandbox
    .requests()
    .filter((r) => r.operation === 'video.create')
    .map((r) => r.at)
    .sort((a, b) => a - b);
}

/** Every callback URL the services were given (they carry our signature), and its signature. */
export function signedCallbackSecrets(sandbox: Sandbox): string[] {
  return sandbox.requests().flatMap((r) => {
    const url = r.body && typeof r.body === 'object' ? (r.body as { callback_url?: unknown }).callback_url : undefined;
    return typeof url === 'string' ? callbackUrlSecrets(url) : [];
  });
}

/** Counts of sandbox requests per operation. */
export function countOps(sandbox: Sandbox): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const r of sandbox.requests()) counts[r.operation] = (counts[r.operation] ?? 0) + 1;
  return counts;
}

/**
 * Gives a test file its stack: started before its tests; after them, every history the file produced is
 * replayed against the current workflow code and scanned for the three secrets and every signed callback
 * URL the services were given, then the stack stops.
 */
export function withStack(options: StackOptions, use: (stack: Stack) => void): void {
  let stack: Stack | undefined;
  beforeAll(async () => {
    stack = await startStack(options);
    use(stack);
  });
  afterAll(async () => {
    if (!stack) return;
    expect(await replayHistories(stack.handles, workflowBundle())).toBe(stack.handles.length);
    await assertNoSecretsInHistories(stack.handles, [
      stack.sandbox.apiKey,
      stack.sandbox.accessToken,
      stack.secret,
      ...signedCallbackSecrets(stack.sandbox),
    ]);
    await stack.stop();
  });
}
