// A remote task's slot of a provider's quota (docs/operations.md, "Provider quotas"): one QuotaTicket per
// remote task (each review batch, the video create, GenerateAndPoll's create) carries the ask its submit or
// create sends, waits for the grant (or the gate's denial, or the job's own admission time-out), or learns
// it was granted at once. The ticket alone keeps the run's slots (RunSlots) until the task is final or
// was never made, for both workflows; its run (QuotaReport) only shows the wait. The ask itself is made by
// the submit or create activity, which alone knows the worker's limits; the stages call these between
// their attempts.
import { CancellationScope, uuid4 } from '@temporalio/workflow';
import {
  admissionTimedOut,
  budgetExceeded,
  type AdmissionAsk,
  type HeldSlotRef,
  type QuotaWait,
} from '../../contract/index.js';
import type { ReviewThenGenerateJob } from '../../job/input.js';
import { countQuotaRefusal, recordAdmissionWait } from '../job-metrics.js';
import { DEFAULT_FAIRNESS_KEY } from '../../model/priority.js';
import { releaseSlot, reportSentLate } from './requester.js';
import type { QuotaSlot, RunSlots, SlotOwner } from './run-slots.js';

/**
 * A run that shows its tasks' quota waits (RunState, GenerateAndPoll's GatewayRun), and where their slots
 * are kept; the tickets alone change what `quotaSlots` holds.
 */
export interface QuotaReport {
  readonly quotaSlots: RunSlots;
  /** `owner` waits for a slot (queued, or refused by the provider after a grant). */
  waitForQuota(owner: SlotOwner, slot: QuotaSlot, refusal?: string): void;
  /** `owner` was granted `slot` in the gate's answer: it holds it from now on. */
  admittedAtOnce(owner: SlotOwner, slot: QuotaSlot): void;
  /** The gate granted `owner`'s slot: its create or submit goes out now; `noneWaiting`: no task still waits. */
  admitted(owner: SlotOwner, noneWaiting: boolean): void;
}

/** What a job chose about its place in line; none of it for GenerateAndPoll, which takes the defaults. */
export type QuotaChoices = Partial<Pick<ReviewThenGenerateJob, 'priority' | 'fairnessKey' | 'onBudgetExceeded'>> & {
  /** AdmissionTimedOut past this wait (timing.admissionTimeoutMs); unset, the wait has no end. */
  admissionTimeoutMs?: number | undefined;
};

/** One remote task's place in a provider's quota. Without a limit on the worker, its ask is never queued. */
export class QuotaTicket {
  /** Sent with every submit or create of the task; `granted` once the gate granted it. */
  readonly ask: AdmissionAsk;
  /** The grants this task took (grantIdOf): a lease check repeats one of them, and is never a new grant. */
  readonly #taken = new Set<string>();
  /** With a rate limit: by when the gate assumes this task's create answered (gate-rate.ts). */
  #sendBy: number | undefined;
  #waitingSince: number | undefined;
  #key: string | undefined;

  constructor(
    private readonly run: QuotaReport,
    private readonly owner: SlotOwner,
    private readonly choices: QuotaChoices = {},
  ) {
    this.ask = {
      requestId: uuid4(),
      priority: choices.priority,
      fairnessKey: choices.fairnessKey,
      ...(choices.onBudgetExceeded === 'fail' ? { onBudgetExceeded: 'fail' as const } : {}),
    };
  }

  /** The ticket of one of a ReviewThenGenerate job's tasks, with the job's choices. */
  static forJob(job: ReviewThenGenerateJob, run: QuotaReport, owner: SlotOwner): QuotaTicket {
    const { priority, fairnessKey, onBudgetExceeded } = job;
    return new QuotaTicket(run, owner, {
      priority,
      fairnessKey,
      onBudgetExceeded,
      admissionTimeoutMs: job.timing.admissionTimeoutMs,
    });
  }

  /**
   * The submit or create was queued (nothing sent), or the provider refused it for its quota (429):
   * waits for the gate's next grant; past timing.admissionTimeoutMs, AdmissionTimedOut.
   */
  async waitFor(wait: QuotaWait): Promise<void> {
    const slot = 'queued' in wait ? wait.queued : wait.refused;
    if ('refused' in wait) countQuotaRefusal(slot.key, this.owner === 'video create' ? 'video' : 'review');
    this.#key = slot.key;
    this.#waitingSince ??= Date.now();
    this.run.quotaSlots.queued(this.owner, slot);
    this.run.waitForQuota(this.owner, slot, 'refused' in wait ? wait.refused.message : undefined);
    const grant = await this.#grant(slot);
    this.#taken.add(grant);
    this.#sendBy = this.run.quotaSlots.grants.sendByOf(slot.requestId, grant);
    this.ask.granted = true;
    this.run.admitted(this.owner, this.run.quotaSlots.admitted(this.owner));
  }

  /**
   * The gate granted the ask in its answer (nothing was sent): the run holds the slot until the task is
   * final, and its next attempt sends.
   */
  admittedAtOnce(slot: HeldSlotRef): void {
    if (slot.grant !== undefined) this.#taken.add(slot.grant);
    this.#sendBy = slot.sendBy;
    this.#key = slot.key;
    this.#waitingSince ??= Date.now();
    this.ask.granted = true;
    this.run.quotaSlots.held(this.owner, slot);
    this.run.admittedAtOnce(this.owner, slot);
  }

  /** The task was made: how long it waited is recorded (metrics), and when its create was answered. */
  async sent(): Promise<void> {
    if (this.#key !== undefined && this.#waitingSince !== undefined) recordAdmissionWait(this.#key, this.#waitingSince);
    await this.answered();
  }

  /**
   * The create (submit) was answered, made or ambiguous: the provider counted it by now. The gate learns
   * the time with the release; at once when it is past the grant's sendBy, so that its rate window does
   * not reopen before the provider's meanwhile (one signal, only for a late create).
   */
  async answered(): Promise<void> {
    const requestId = this.run.quotaSlots.requestIdOf(this.owner);
    if (this.#key === undefined || requestId === undefined) return;
    const now = Date.now();
    this.run.quotaSlots.sent(this.owner, now);
    const late = this.#sendBy !== undefined && now > this.#sendBy;
    this.#sendBy = undefined;
    if (late) await CancellationScope.nonCancellable(() => reportSentLate(this.#key!, requestId, now));
  }

  /** Waits for a grant this task has not taken yet (a lease check repeats one it took): which grant. */
  async #grant(slot: { key: string; requestId: string }): Promise<string> {
    const limit = this.choices.admissionTimeoutMs;
    const since = this.#waitingSince!;
    const granted = await this.run.quotaSlots.grants.waitFor(
      slot.requestId,
      this.#taken,
      limit === undefined ? undefined : Math.max(since + limit - Date.now(), 0),
    );
    if (typeof granted === 'string') return granted;
    if (granted !== undefined)
      throw budgetExceeded(`${granted.denied}; nothing was created`, {
        quotaKey: slot.key,
        fairnessKey: this.choices.fairnessKey ?? DEFAULT_FAIRNESS_KEY,
      });
    throw admissionTimedOut(`no slot of the provider's quota ${slot.key} within ${limit} ms; nothing was sent`, {
      quotaKey: slot.key,
      waitedMs: Date.now() - since,
    });
  }
}

/**
 * Gives back the run's quota slots (or withdraws their requests): `owner`'s, whose task is final, or
 * every one left when the run ends.
 */
export async function releaseQuotaSlots(run: Pick<QuotaReport, 'quotaSlots'>, owner?: SlotOwner): Promise<void> {
  for (const slot of run.quotaSlots.take(owner))
    await CancellationScope.nonCancellable(() => releaseSlot(slot.key, slot.requestId, slot.sentAt));
}
