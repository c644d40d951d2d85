// GenerateAndPoll's create: at most once, and inside the video quota the worker sets, with the same
// QuotaTicket as a ReviewThenGenerate create (admission/job-slot.ts); GatewayRun shows the wait.
import { sleep } from '@temporalio/workflow';
import {
  submitUnconfirmed,
  type GatewayCreateResult,
  type GatewayQuotaCreateInput,
  type QuotaAnswer,
} from '../contract/index.js';
import type { QuotaReport, QuotaTicket } from './admission/job-slot.js';
import { RunSlots, type QuotaSlot, type SlotOwner } from './admission/run-slots.js';
import { ambiguityOf } from './ambiguity.js';
import type { GenerateAndPollProgress } from './generate-and-poll-definitions.js';
import type { GenerateAndPollJob } from './generate-and-poll-input.js';

/** The create activity (rtgCreateGatewayTaskWithinQuota), as the workflow schedules it. */
export type GatewayCreate = (input: GatewayQuotaCreateInput) => Promise<GatewayCreateResult | QuotaAnswer>;

/**
 * One create. An ambiguous outcome (500, time-out, reset, unreadable 2xx) is never resubmitted by
 * default: these entry points have no callback that could name the task, so a second create could only
 * guess. The run fails with the evidence; `resubmitOnAmbiguity` opts into one resubmission after a grace.
 * Where the worker limits the video tasks in flight, a create that finds no free slot sends nothing: the
 * run waits (stage `waiting_for_quota`, no worker slot held) for the gate's grant, and a 429 after the
 * grant waits again. The slot is the GatewayRun's, given back by the caller when the run ends.
 */
export async function createGatewayTaskOnce(
  job: GenerateAndPollJob,
  create: GatewayCreate,
  quota: QuotaTicket,
  progress: GenerateAndPollProgress,
): Promise<GatewayCreateResult> {
  for (let attempt = 1; ;) {
    progress.creates = attempt;
    let answer: Awaited<ReturnType<GatewayCreate>>;
    try {
      answer = await create({
        entryPoint: job.entryPoint,
        body: job.body,
        ...(job.queryKind ? { queryKind: job.queryKind } : {}),
        ...(job.checkWellKnown ? { checkWellKnown: true } : {}),
        admission: quota.ask,
      });
    } catch (err) {
      const ambiguity = ambiguityOf(err);
      if (!ambiguity) throw err;
      progress.lastError = `create ambiguous (${attempt}): ${ambiguity.message}`;
      if (!job.resubmitOnAmbiguity || attempt >= 2) {
        throw submitUnconfirmed(
          `ambiguous create: check the provider before retrying — the ${job.entryPoint} create may have made a task, but no task id came back ` +
            `(${ambiguity.message}); ${attempt} create request(s) sent, ${job.resubmitOnAmbiguity ? 'the one resubmission was ambiguous too' : 'not resubmitted (resubmitOnAmbiguity is off)'}`,
          { entryPoint: job.entryPoint, createRequests: attempt, evidence: ambiguity.evidence },
        );
      }
      progress.stage = 'ambiguity-grace';
      if (job.timing.createAmbiguityGraceMs > 0) await sleep(job.timing.createAmbiguityGraceMs);
      progress.stage = 'creating';
      attempt++;
      continue;
    }
    if ('admitted' in answer) {
      quota.admittedAtOnce(answer.admitted); // nothing sent yet: the next attempt sends
      continue;
    }
    if ('queued' in answer || 'refused' in answer) {
      await quota.waitFor(answer);
      continue;
    }
    quota.sent();
    return answer;
  }
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
