// How a run gets a slot from its quota key's AdmissionGate (gate.ts), holding no activity slot while it
// waits. The ask is a signal from the workflow to the gate's id (one billable action); only when the gate
// is not running (the first ask of a key, or after the gate was terminated) does the run fall back to the
// activity rtgAcquireSlot, which signals-with-start it, since workflow code cannot start a workflow it
// does not own. Then the run waits for `slotGranted` with `condition`, and releases with a signal.
// Per admitted job: ask 1, grant 1, release 1 (plus one activity attempt when the gate had to be started).
// The video create's admission (generation-stage.ts) uses the same grant and release; its ask is made by
// the create activity, which alone knows the worker's limits (src/activities/admission.ts).
import {
  condition,
  getExternalWorkflowHandle,
  proxyActivities,
  setHandler,
  uuid4,
  workflowInfo,
} from '@temporalio/workflow';
import {
  acquireSlotSignal,
  admissionGateId,
  grantIdOf,
  releaseSlotSignal,
  slotDeniedSignal,
  slotGrantedSignal,
  type AdmissionActivities,
  type SlotAsk,
} from '../../contract/admission.js';

export interface SlotOptions {
  key: string;
  /** The capacity the gate starts with if this ask starts it; a running gate keeps its own. */
  capacity: number;
  leaseMs?: number;
  priority?: number;
  fairnessKey?: string;
  weight?: number;
  /** Give up waiting after this long: the request is withdrawn and `acquireSlot` returns undefined. */
  timeoutMs?: number;
}

export interface HeldSlot {
  requestId: string;
  /** Gives the slot back (idempotent at the gate); a gate that is gone is not an error. */
  release(): Promise<void>;
}

const { rtgAcquireSlot } = proxyActivities<AdmissionActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumInterval: '10 seconds' },
});

/**
 * The grants a run has received, by request id: which grants (grantIdOf) each request was told of. One
 * per run, made before the run asks (a grant that comes earlier is buffered by the SDK until the handler
 * is set): workflow modules are preloaded and shared by every run of a worker, so no run's state may live
 * at module level.
 */
export class SlotGrants {
  readonly #told = new Map<string, string[]>();
  /** Requests the gate will not grant (a spent budget), with why. */
  readonly #denied = new Map<string, string>();

  constructor() {
    setHandler(slotGrantedSignal, (granted) => {
      const told = this.#told.get(granted.requestId) ?? [];
      const id = grantIdOf(granted);
      if (!told.includes(id)) this.#told.set(granted.requestId, [...told, id]); // a lease check repeats one
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
}

/** Gives a slot back, or withdraws a waiting request (idempotent at the gate); a gate that is gone is not an error. */
export async function releaseSlot(key: string, requestId: string): Promise<void> {
  await delivered(() => getExternalWorkflowHandle(admissionGateId(key)).signal(releaseSlotSignal, { requestId }));
}

/** False when the signal could not be delivered: the gate is not running (ExternalWorkflowExecutionNotFound). */
async function delivered(send: () => Promise<void>): Promise<boolean> {
  try {
    await send();
    return true;
  } catch {
    return false;
  }
}

/**
 * Asks for a slot and waits for it; undefined when `timeoutMs` passed first (the request is withdrawn).
 * A run that asks more than once passes its one `SlotGrants`.
 */
export async function acquireSlot(options: SlotOptions, grants = new SlotGrants()): Promise<HeldSlot | undefined> {
  const info = workflowInfo();
  const requestId = uuid4();
  const ask: SlotAsk = {
    requestId,
    workflowId: info.workflowId,
    runId: info.runId,
    ...(options.priority !== undefined ? { priority: options.priority } : {}),
    ...(options.fairnessKey !== undefined ? { fairnessKey: options.fairnessKey } : {}),
    ...(options.weight !== undefined ? { weight: options.weight } : {}),
  };
  const gate = getExternalWorkflowHandle(admissionGateId(options.key));
  const release = () => releaseSlot(options.key, requestId);
  if (!(await delivered(() => gate.signal(acquireSlotSignal, ask)))) {
    await rtgAcquireSlot({
      key: options.key,
      capacity: options.capacity,
      ...(options.leaseMs !== undefined ? { leaseMs: options.leaseMs } : {}),
      request: ask,
    });
  }
  const answer = await grants.waitFor(requestId, new Set(), options.timeoutMs);
  if (answer === undefined || typeof answer === 'object') {
    // A grant may cross this withdrawal: the release frees it then, as it withdraws a waiting request.
    await release();
    return undefined;
  }
  return { requestId, release };
}
