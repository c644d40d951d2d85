// GenerateAndPoll: one task on an asynchronous gateway entry point (unified video, vendor A, vendor B,
// /v1/videos, aigc-images), created once (inside the worker's video quota: gateway-create.ts), then polled
// on its query path until a final state.
// Deterministic: all I/O happens in activities; the polling loop is the query activity's retry policy,
// and the workflow only wakes when the state changes (so `progress` shows every state, unknown ones too).
import { ActivityCancellationType, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import {
  generationCancelled,
  generationExpired,
  generationFailed,
  generationTimedOut,
  invalidRunInput,
  type GatewayActivities,
  type GatewayCreateResult,
  type GatewayTaskSummary,
} from '../contract/index.js';
import { FailureType } from '../model/failure-types.js';
import { formatIssues } from '../model/validation.js';
import {
  validateGenerateAndPollInput,
  type GenerateAndPollInput,
  type GenerateAndPollJob,
  type GenerateAndPollTiming,
} from './generate-and-poll-input.js';
import { asPublicFailure } from './failure-reading.js';
import { RemoteTask, type RemoteTaskRules } from './remote-task.js';
import { waitUntilFinal, type QueryPacing } from './task-waiter.js';
import {
  generateAndPollProgressQuery,
  type GenerateAndPollProgress,
  type GenerateAndPollResult,
} from './generate-and-poll-definitions.js';
import { POLL_RETRY, SUBMIT_RETRY } from './retry-policies.js';
import { QuotaTicket, releaseQuotaSlots } from './admission/job-slot.js';
import { createGatewayTaskOnce, GatewayRun, type GatewayCreate } from './gateway-create.js';

function gatewayActivities(timing: GenerateAndPollTiming) {
  const startToCloseTimeout = timing.callTimeoutMs;
  const creating = proxyActivities<GatewayActivities>({
    startToCloseTimeout,
    retry: SUBMIT_RETRY,
  });
  /** Each attempt is one query and sets the delay before the next (interval, Retry-After, backoff). */
  const polling = (scheduleToCloseMs: number) =>
    proxyActivities<GatewayActivities>({
      startToCloseTimeout,
      scheduleToCloseTimeout: scheduleToCloseMs,
      retry: POLL_RETRY,
      cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
    });
  /** Keeping a result that has no URL: a download into the store that heartbeats (as the store stage). */
  const keeping = proxyActivities<GatewayActivities>({
    startToCloseTimeout: '2h',
    heartbeatTimeout: Math.max(Math.min(timing.callTimeoutMs, 30_000), 2_000),
    retry: {
      initialInterval: '1s',
      backoffCoefficient: 2,
      maximumAttempts: 5,
      nonRetryableErrorTypes: [FailureType.VideoStoreFailed, FailureType.GenerationFailed],
    },
  });
  return { creating, polling, keeping };
}

type RunActivities = ReturnType<typeof gatewayActivities>;

export async function GenerateAndPoll(input: GenerateAndPollInput): Promise<GenerateAndPollResult> {
  const progress: GenerateAndPollProgress = { stage: 'creating', entryPoint: undefined, creates: 0, queries: 0 };
  setHandler(generateAndPollProgressQuery, () => progress);
  const validation = validateGenerateAndPollInput(input);
  if (!validation.ok) {
    const failure = invalidRunInput(formatIssues(validation.problems), validation.problems);
    fail(progress, failure);
    throw failure;
  }
  const job = validation.job;
  progress.entryPoint = job.entryPoint;
  const acts = gatewayActivities(job.timing);
  const run = new GatewayRun(progress);
  const quota = new QuotaTicket(run, 'video create');
  try {
    const create: GatewayCreate = (request) =>
      acts.creating.rtgCreateGatewayTaskWithinQuota.executeWithOptions({ summary: `create ${job.entryPoint} task` }, [
        request,
      ]);
    const created = await createGatewayTaskOnce(job, create, quota, progress);
    progress.taskId = created.taskId;
    if (created.state !== undefined) progress.state = created.state;
    progress.reading = created.reading;
    progress.stage = 'polling';
    const task = await withResultUrl(job, acts, await pollUntilFinal(job, acts, progress, created));
    return outcome(job, task, progress);
  } catch (err) {
    const failure = publicFailure(err);
    fail(progress, failure);
    throw failure;
  } finally {
    await releaseQuotaSlots(run); // the task is final, or was never made
  }
}

function fail(progress: GenerateAndPollProgress, err: unknown) {
  progress.stage = 'failed';
  progress.lastError = err instanceof Error ? err.message : String(err);
}

class PollTimedOut extends Error {
  constructor(
    readonly taskId: string,
    timeoutMs: number,
  ) {
    super(`task ${taskId} not final after ${timeoutMs} ms`);
  }
}

/** A gateway task's rules: polled (no callback can come), paced by the entry point's interval. */
function gatewayTaskRules(t: GenerateAndPollTiming): RemoteTaskRules {
  return {
    minIntervalMs: t.minQueryIntervalMs,
    pollIntervalMs: t.pollIntervalMs,
    fallbackMs: t.pollIntervalMs,
    callbacks: false,
    cancelledStopsQueries: false,
    isFinal: (s) => s === FINAL,
    isWorking: (s) => s !== FINAL,
  };
}

/** The adapters read each entry point's states (`reading`, `final`); the RemoteTask needs only this. */
const FINAL = 'final';

/**
 * Polls the task until a final state: one activity whose retries do the loop, which also returns when the
 * state changes (so `progress` shows every state, unknown ones too); the RemoteTask paces the next one.
 */
async function pollUntilFinal(
  job: GenerateAndPollJob,
  acts: RunActivities,
  progress: GenerateAndPollProgress,
  created: GatewayCreateResult,
): Promise<GatewayTaskSummary> {
  const t = job.timing;
  const task = new RemoteTask(gatewayTaskRules(t));
  task.apply({ type: 'submitted', taskId: created.taskId, at: Date.now(), callbackSent: false });
  let lastState: string | null = created.state ?? null;
  const query = (untilFinal: boolean, pacing: QueryPacing, scheduleToCloseMs: number) =>
    acts
      .polling(scheduleToCloseMs)
      .rtgQueryGatewayTask.executeWithOptions({ summary: `poll ${job.entryPoint} task ${created.taskId}` }, [
        {
          entryPoint: job.entryPoint,
          ...(job.queryKind ? { queryKind: job.queryKind } : {}),
          taskId: created.taskId,
          minIntervalMs: t.minQueryIntervalMs,
          cadenceMs: t.pollIntervalMs,
          untilFinal,
          returnOnChangeFrom: lastState,
          // Never stopped for a callback: it needs no word of a longer Retry-After (its retries obey it).
          notBefore: pacing.notBefore,
        },
      ]);
  const deadline = Date.now() + t.generationTimeoutMs;
  const outcome = await waitUntilFinal<GatewayTaskSummary>(
    task,
    {
      confirm: (pacing) => query(false, pacing, Math.max(deadline - Date.now(), 1_000)),
      poll: (pacing, scheduleToCloseMs) => query(true, pacing, scheduleToCloseMs),
      statusOf: (r) => (r.final ? FINAL : 'working'),
      retryAfterOf: () => undefined,
      observe: (r) => {
        progress.queries += r.queries || 1;
        if (r.state !== undefined) progress.state = r.state;
        progress.reading = r.reading;
        lastState = r.state ?? null;
      },
    },
    deadline,
  );
  if (outcome.status !== FINAL || !outcome.answer) throw new PollTimedOut(created.taskId, t.generationTimeoutMs);
  return outcome.answer;
}

/**
 * A succeeded record that names no URL (OpenAI's /v1/videos object) is kept in the worker's store, whose
 * address becomes the result's `url`; where that cannot be done the run fails typed (VideoStoreFailed,
 * GenerationFailed). A success is never reported without a URL.
 */
async function withResultUrl(
  job: GenerateAndPollJob,
  acts: RunActivities,
  task: GatewayTaskSummary,
): Promise<GatewayTaskSummary> {
  if (task.reading !== 'succeeded' || task.url !== undefined) return task;
  const stored = await acts.keeping.rtgKeepGatewayVideo.executeWithOptions(
    { summary: `keep ${job.entryPoint} result ${task.taskId}` },
    [{ workflowId: workflowInfo().workflowId, entryPoint: job.entryPoint, taskId: task.taskId }],
  );
  return { ...task, url: stored.url };
}

function outcome(
  job: GenerateAndPollJob,
  task: GatewayTaskSummary,
  progress: GenerateAndPollProgress,
): GenerateAndPollResult {
  const evidence = {
    entryPoint: job.entryPoint,
    taskId: task.taskId,
    state: task.state,
    error: task.error,
    record: task.raw,
  };
  const said = task.error?.message ?? task.error?.code;
  switch (task.reading) {
    case 'succeeded':
      progress.stage = 'succeeded';
      return {
        entryPoint: job.entryPoint,
        taskId: task.taskId,
        state: 'succeeded',
        rawState: task.state,
        url: task.url,
        task: task.raw,
        queries: progress.queries,
      };
    case 'cancelled':
      throw generationCancelled(`${job.entryPoint} task ${task.taskId} was cancelled (${task.state})`, evidence);
    case 'expired':
      throw generationExpired(`${job.entryPoint} task ${task.taskId} expired (${task.state})`, evidence);
    default:
      throw generationFailed(
        `${job.entryPoint} task ${task.taskId} ended ${task.state ?? 'without a state'}${said ? `: ${said}` : ''}`,
        evidence,
      );
  }
}

/** Callers see one ApplicationFailure of a public type; activity wrappers are unwrapped, evidence kept. */
function publicFailure(err: unknown): unknown {
  if (err instanceof PollTimedOut) {
    return generationTimedOut(err.message, { taskId: err.taskId });
  }
  return asPublicFailure(err, FailureType.GenerationFailed);
}
