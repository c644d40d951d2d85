// GenerateAndPoll's create: through the one submit loop (submit-once.ts) and its one ambiguity policy
// (ambiguity.ts), inside the video quota the worker sets, with the same QuotaTicket as a ReviewThenGenerate
// create (admission/job-slot.ts); GatewayRun shows the wait.
import { CancellationScope } from '@temporalio/workflow';
import {
  submitUnconfirmed,
  type GatewayCreateResult,
  type GatewayQuotaCreateInput,
  type QuotaAnswer,
} from '../contract/index.js';
import type { QuotaReport, QuotaTicket } from './admission/job-slot.js';
import { RunSlots, type QuotaSlot, type SlotOwner } from './admission/run-slots.js';
import { ambiguityOf } from './ambiguity.js';
import type { GenerateAndPollProgress } from '../job/generate-and-poll-definitions.js';
import type { GenerateAndPollJob } from '../job/generate-and-poll-input.js';
import type { RemoteTask } from './remote-task.js';
import { submitAtMostOnce } from './submit-once.js';

/** The create activity (rtgCreateGatewayTaskWithinQuota), as the workflow schedules it. */
export type GatewayCreate = (input: GatewayQuotaCreateInput) => Promise<GatewayCreateResult | QuotaAnswer>;

/**
 * One create. An ambiguous outcome (500, time-out, reset, unreadable 2xx) is never resubmitted by
 * default: these entry points have no callback that could name the task, so a second create could only
 * guess. The run fails with the evidence; `resubmitOnAmbiguity` opts into resubmitting, as for any create.
 * Where the worker limits the video tasks in flight, a create that finds no free slot sends nothing: the
 * run waits (stage `waiting_for_quota`, no worker slot held) for the gate's grant, and a 429 after the
 * grant waits again. The slot is the GatewayRun's, given back by the caller when the task is final.
 * Returns the task and the generation's deadline (from admission).
 */
export async function createGatewayTaskOnce(
  job: GenerateAndPollJob,
  create: GatewayCreate,
  quota: QuotaTicket,
  task: RemoteTask,
  progress: GenerateAndPollProgress,
): Promise<{ created: GatewayCreateResult; deadline: number }> {
  let ambiguous = 0;
  const outcome = await submitAtMostOnce<GatewayCreateResult, never>({
    job,
    run: { noteError: (message) => void (progress.lastError = message) },
    kind: 'video',
    label: 'create',
    task,
    quota,
    timeoutMs: job.timing.generationTimeoutMs,
    deadline: Date.now() + job.timing.generationTimeoutMs,
    async send(admission) {
      progress.creates = 1 + ambiguous; // create requests sent, this one included (an ask sends none)
      try {
        // Not cancelled mid-call: a create cancelled in flight may still make a task, whose slot is then held.
        return await CancellationScope.nonCancellable(() =>
          create({
            entryPoint: job.entryPoint,
            body: job.body,
            ...(job.queryKind ? { queryKind: job.queryKind } : {}),
            ...(job.checkWellKnown ? { checkWellKnown: true } : {}),
            admission,
          }),
        );
      } catch (err) {
        if (ambiguityOf(err)) ambiguous++;
        throw err;
      }
    },
    // No callback can name a task these entry points made: the policy never waits for one.
    find: () => Promise.resolve(undefined),
    unconfirmed: (ambiguity, count) => (why) =>
      submitUnconfirmed(
        `ambiguous create: check the provider before retrying — the ${job.entryPoint} create may have made a task, but no task id came back ` +
          `(${ambiguity.message}); ${count} create request(s) sent, ${job.resubmitOnAmbiguity ? why : 'not resubmitted (resubmitOnAmbiguity is off)'}`,
        { entryPoint: job.entryPoint, createRequests: count, evidence: ambiguity.evidence },
      ),
  });
  if (!('sent' in outcome)) throw new Error('GenerateAndPoll adopted a task no callback can name'); // find never finds
  return { created: outcome.sent, deadline: outcome.deadline };
}

/** GenerateAndPoll's side of the video quota: its progress shows the wait; its ticket keeps the slot here. */
export class GatewayRun implements QuotaReport {
  readonly quotaSlots = new RunSlots();

  constructor(private readonly progress: GenerateAndPollProgress) {}

  waitForQuota(_owner: SlotOwner, slot: QuotaSlot, refusal?: string): void {
    this.progress.stage = 'waiting_for_quota';
    this.progress.quotaKey = slot.key;
    if (refusal !== undefined) this.progress.lastError = `create refused for the provider's quota: ${refusal}`;
  }

  admittedAtOnce(_owner: SlotOwner, slot: QuotaSlot): void {
    this.progress.quotaKey = slot.key;
  }

  admitted(): void {
    this.progress.stage = 'creating';
  }
}
