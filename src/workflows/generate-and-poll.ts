// GenerateAndPoll: one task on an asynchronous gateway entry point (unified video, vendor A, vendor B,
// /v1/videos, aigc-images), created once (inside the worker's video quota: gateway-create.ts), then polled
// on its query path until a final state. Its slot of the quota is given back only when its task is final
// or was never made: a job cancelled while its task runs polls it on to its end first, since none of these
// entry points has a cancel call (the spec shows one for the native task API only).
// Deterministic: all I/O happens in activities; the polling loop is the query activity's retry policy,
// and the workflow only wakes when the state changes (so `progress` shows every state, unknown ones too).
import {
  ActivityCancellationType,
  CancellationScope,
  isCancellation,
  proxyActivities,
  setHandler,
} from '@temporalio/workflow';
import {
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
} from '../job/generate-and-poll-input.js';
import { asPublicFailure } from './failure-reading.js';
import { RemoteTask, type RemoteTaskRules } from './remote-task.js';
import { waitUntilFinal, type QueryPacing } from './task-waiter.js';
import {
  generateAndPollProgressQuery,
  type GenerateAndPollProgress,
  type GenerateAndPollResult,
} from '../job/generate-and-poll-definitions.js';
import { POLL_RETRY, SUBMIT_RETRY } from './retry-policies.js';
import { QuotaTicket, releaseQuotaSlots } from './admission/job-slot.js';
import type { SlotHandOff } from './admission/run-slots.js';
import { createGatewayTaskOnce, GatewayRun, type GatewayCreate } from './gateway-create.js';
import { checkJobNeeds, gatewayJobNeeds } from './job-needs.js';
import { outcome, withResultUrl } from './gateway-result.js';

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
  return { creating, polling };
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
  try {
    await checkJobNeeds(gatewayJobNeeds(job));
  } catch (err) {
    if (!isCancellation(err)) fail(progress, err);
    throw err;
  }
  const acts = gatewayActivities(job.timing);
  const run = new GatewayRun(progress);
  const quota = new QuotaTicket(run, 'video create');
  let created: GatewayCreateResult | undefined;
  let deadline = 0;
  try {
    const create: GatewayCreate = (request) =>
      acts.creating.rtgCreateGatewayTaskWithinQuota.executeWithOptions({ summary: `create ${job.entryPoint} task` }, [
        request,
      ]);
    const remote = new RemoteTask(gatewayTaskRules(job.timing));
    ({ created, deadline } = await createGatewayTaskOnce(job, create, quota, remote, progress));
    progress.taskId = created.taskId;
    if (created.state !== undefined) progress.state = created.state;
    progress.reading = created.reading;
    progress.stage = 'polling';
    const slot = run.quotaSlots.handOff('video create');
    const task = await withResultUrl(job, await pollUntilFinal(job, acts, progress, created, deadline, remote, slot));
    return outcome(job, task, progress);
  } catch (err) {
    if (created && isCancellation(err) && run.quotaSlots.requestIdOf('video create') !== undefined) {
      await untilFinalAfterCancel(job, acts, progress, created, deadline);
    }
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

/**
 * Cancelled while its task runs, holding a slot: the task runs on (no cancel call), so it is polled,
 * uncancellable, to its end (or the generation time-out, or a failed read) before the slot is given back;
 * otherwise the next job's create would take the provider past its cap.
 */
async function untilFinalAfterCancel(
  job: GenerateAndPollJob,
  acts: RunActivities,
  progress: GenerateAndPollProgress,
  created: GatewayCreateResult,
  deadline: number,
): Promise<void> {
  progress.lastError = `cancelled while task ${created.taskId} runs: polled to its end before its quota slot is given back`;
  await CancellationScope.nonCancellable(() =>
    // Not final by the generation time-out, or no longer readable: given back then, as without a cancel.
    pollUntilFinal(job, acts, progress, created, deadline, new RemoteTask(gatewayTaskRules(job.timing))).catch(
      () => undefined,
    ),
  );
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
  deadline: number,
  task: RemoteTask,
  slot?: SlotHandOff,
): Promise<GatewayTaskSummary> {
  const t = job.timing;
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
          ...(pacing.releaseSlotWhenFinal ? { releaseSlotWhenFinal: pacing.releaseSlotWhenFinal } : {}),
        },
      ]);
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
      ...(slot ? { slot } : {}),
    },
    deadline,
  );
  if (outcome.status !== FINAL || !outcome.answer) throw new PollTimedOut(created.taskId, t.generationTimeoutMs);
  return outcome.answer;
}

/** Callers see one ApplicationFailure of a public type; activity wrappers are unwrapped, evidence kept. */
function publicFailure(err: unknown): unknown {
  if (err instanceof PollTimedOut) {
    return generationTimedOut(err.message, { taskId: err.taskId });
  }
  return asPublicFailure(err, FailureType.GenerationFailed);
}
