// GenerateAndPoll's place in the video quota the worker sets (docs/operations.md, "Provider quotas"): the
// same gate, ask and grant as a ReviewThenGenerate create (job-slot.ts), for a run with one task and no
// RunState. Its priority and tenant are the defaults, and it waits without an admission time-out.
import { CancellationScope, uuid4 } from '@temporalio/workflow';
import type { AdmissionAsk, HeldSlotRef, QuotaWait } from '../../contract/index.js';
import { releaseSlot, SlotGrants } from './requester.js';

export class GatewayQuota {
  /** Sent with every create; `granted` once the gate granted it. */
  readonly ask: AdmissionAsk = { requestId: uuid4() };
  #slot: HeldSlotRef | undefined;
  #grants: SlotGrants | undefined;
  #lastGrant = 0;

  /** The create was queued (nothing sent) or refused for the quota (429): waits for the gate's next grant. */
  async waitFor(wait: QuotaWait): Promise<void> {
    const { key, requestId } = 'queued' in wait ? wait.queued : wait.refused;
    this.#slot = { key, requestId };
    this.#grants ??= new SlotGrants();
    // Never denied: a denial needs onBudgetExceeded 'fail', which this ask does not carry.
    const granted = await this.#grants.waitFor(requestId, this.#lastGrant);
    if (typeof granted === 'number') this.#lastGrant = granted;
    this.ask.granted = true;
  }

  /** Granted in the answer to the ask (nothing sent yet): held until the run ends. */
  held(slot: HeldSlotRef): void {
    this.#slot = slot;
    this.ask.granted = true;
  }

  /** Gives the slot back, or withdraws the request, when the task is final or the run ends. */
  async release(): Promise<void> {
    const slot = this.#slot;
    this.#slot = undefined;
    if (slot) await CancellationScope.nonCancellable(() => releaseSlot(slot.key, slot.requestId));
  }
}
