// A run's side of its quota key's AdmissionGate (gate.ts), for the runs of the package: the ask is made by
// the create or submit activity (src/activities/admission.ts), which alone knows the worker's limits; the
// run waits for the gate's `slotGranted` signal with `condition` (holding no activity slot) and gives the
// slot back with a signal. A slot is its run's: the gate tells that exact run, so no run may carry one
// across continue-as-new (none of the package's does).
import { condition, getExternalWorkflowHandle, setHandler } from '@temporalio/workflow';
import {
  admissionGateId,
  grantIdOf,
  releaseSlotSignal,
  slotDeniedSignal,
  slotGrantedSignal,
  slotRelease,
  slotSentSignal,
} from '../../contract/admission.js';

/**
 * The grants a run has received, by request id: which grants (grantIdOf) each request was told of. One
 * per run, made before the run asks (a grant that comes earlier is buffered by the SDK until the handler
 * is set): workflow modules are preloaded and shared by every run of a worker, so no run's state may live
 * at module level.
 */
export class SlotGrants {
  readonly #told = new Map<string, string[]>();
  /** By grant id: by when the gate assumes its create answered (rate-limited gates only). */
  readonly #sendBy = new Map<string, number>();
  /** Requests the gate will not grant (a spent budget), with why. */
  readonly #denied = new Map<string, string>();

  constructor() {
    setHandler(slotGrantedSignal, (granted) => {
      const told = this.#told.get(granted.requestId) ?? [];
      const id = grantIdOf(granted);
      if (!told.includes(id)) this.#told.set(granted.requestId, [...told, id]); // a lease check repeats one
      if (granted.sendBy !== undefined) this.#sendBy.set(`${granted.requestId}${id}`, granted.sendBy);
    });
    setHandler(slotDeniedSignal, ({ requestId, message }) => void this.#denied.set(requestId, message));
  }

  /**
   * Waits for a grant of `requestId` other than those `taken` (a lease check repeats a grant the run has
   * taken already, whenever it arrives; a grant after a refusal is another): which grant; `{ denied }`
   * when the gate denied it; undefined when `timeoutMs` passed first.
   */
  async waitFor(
    requestId: string,
    taken: ReadonlySet<string> = new Set(),
    timeoutMs?: number,
  ): Promise<string | { denied: string } | undefined> {
    const fresh = () => this.#told.get(requestId)?.find((id) => !taken.has(id));
    const answered = () => fresh() !== undefined || this.#denied.has(requestId);
    if (timeoutMs === undefined) await condition(answered);
    else if (!(await condition(answered, timeoutMs))) return undefined;
    const denied = this.#denied.get(requestId);
    return denied !== undefined ? { denied } : fresh();
  }

  /** By when the gate assumes the create of `requestId`'s grant `grant` answered, if it counts creates. */
  sendByOf(requestId: string, grant: string): number | undefined {
    return this.#sendBy.get(`${requestId}${grant}`);
  }
}

/**
 * Gives a slot back, or withdraws a waiting request (idempotent at the gate), with when its create was
 * answered if it was sent (the gate's rate window); a gate that is gone is not an error.
 */
export async function releaseSlot(key: string, requestId: string, sentAt?: number): Promise<void> {
  await getExternalWorkflowHandle(admissionGateId(key))
    .signal(releaseSlotSignal, slotRelease(requestId, sentAt))
    .catch(() => undefined); // the gate is not running (ExternalWorkflowExecutionNotFound): nothing is held
}

/** The create was answered after the grant's sendBy: the gate's rate window counts it from `sentAt`. */
export async function reportSentLate(key: string, requestId: string, sentAt: number): Promise<void> {
  await getExternalWorkflowHandle(admissionGateId(key))
    .signal(slotSentSignal, { requestId, sentAt })
    .catch(() => undefined); // the gate is gone: it counts nothing any more
}
