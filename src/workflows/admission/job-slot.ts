// A job's slot of the provider's quota (docs/operations.md, "Provider quotas"): what its create asks the
// gate for, the wait for the grant (or the gate's denial, or the job's own admission time-out), and the
// release once the task is final or was never made. The ask itself is made by the create activity, which
// alone knows the worker's limits; the generation stage calls these between its creates.
import { CancellationScope, uuid4 } from '@temporalio/workflow';
import { admissionTimedOut, budgetExceeded, type AdmissionAsk } from '../../contract/index.js';
import type { ReviewThenGenerateJob } from '../input.js';
import type { RunState } from '../run-state.js';
import { releaseSlot, type SlotGrants } from './requester.js';

/** The request a job's create carries: unique per run, with the job's priority, tenant and budget choice. */
export function admissionAskOf(job: ReviewThenGenerateJob): AdmissionAsk {
  return {
    requestId: uuid4(),
    priority: job.priority,
    fairnessKey: job.fairnessKey,
    ...(job.onBudgetExceeded === 'fail' ? { onBudgetExceeded: 'fail' as const } : {}),
  };
}

/** Waits for a grant newer than `after`; past timing.admissionTimeoutMs, AdmissionTimedOut (then withdrawn). */
export async function grantOf(
  job: ReviewThenGenerateJob,
  run: RunState,
  grants: SlotGrants,
  slot: { key: string; requestId: string },
  after: number,
): Promise<number> {
  const limit = job.timing.admissionTimeoutMs;
  const since = run.progress.admission?.waitingSince ?? Date.now();
  const granted = await grants.waitFor(
    slot.requestId,
    after,
    limit === undefined ? undefined : Math.max(since + limit - Date.now(), 0),
  );
  if (typeof granted === 'number') return granted;
  if (granted !== undefined)
    throw budgetExceeded(`${granted.denied}; nothing was created`, {
      quotaKey: slot.key,
      fairnessKey: job.fairnessKey,
    });
  throw admissionTimedOut(`no slot of the provider's quota ${slot.key} within ${limit} ms; nothing was created`, {
    quotaKey: slot.key,
    waitedMs: Date.now() - since,
  });
}

/** Gives the run's quota slot back (or withdraws its request): the task is final, or was never made. */
export async function releaseQuotaSlot(run: RunState): Promise<void> {
  const slot = run.takeQuotaSlot();
  if (slot) await CancellationScope.nonCancellable(() => releaseSlot(slot.key, slot.requestId));
}
