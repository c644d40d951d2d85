// How a run gets a slot from its quota key's AdmissionGate (gate.ts), holding no activity slot while it
// waits. The ask is a signal from the workflow to the gate's id (one billable action); only when the gate
// is not running (the first ask of a key, or after the gate was terminated) does the run fall back to the
// activity rtgAcquireSlot, which signals-with-start it, since workflow code cannot start a workflow it
// does not own. Then the run waits for `slotGranted` with `condition`, and releases with a signal.
// Per admitted job: ask 1, grant 1, release 1 (plus one activity attempt when the gate had to be started).
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
  releaseSlotSignal,
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

/** The grants this run has received, by request id (one handler serves every slot the run asks for). */
const grants = new Set<string>();
let handlerSet = false;

/** False when the signal could not be delivered: the gate is not running (ExternalWorkflowExecutionNotFound). */
async function delivered(send: () => Promise<void>): Promise<boolean> {
  try {
    await send();
    return true;
  } catch {
    return false;
  }
}

/** Asks for a slot and waits for it; undefined when `timeoutMs` passed first (the request is withdrawn). */
export async function acquireSlot(options: SlotOptions): Promise<HeldSlot | undefined> {
  if (!handlerSet) {
    setHandler(slotGrantedSignal, ({ requestId }) => void grants.add(requestId));
    handlerSet = true;
  }
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
  const release = async () => void (await delivered(() => gate.signal(releaseSlotSignal, { requestId })));
  if (!(await delivered(() => gate.signal(acquireSlotSignal, ask)))) {
    await rtgAcquireSlot({
      key: options.key,
      capacity: options.capacity,
      ...(options.leaseMs !== undefined ? { leaseMs: options.leaseMs } : {}),
      request: ask,
    });
  }
  const isGranted = () => grants.has(requestId);
  if (options.timeoutMs === undefined) await condition(isGranted);
  else if (!(await condition(isGranted, options.timeoutMs))) {
    // A grant may cross this withdrawal: the release frees it then, as it withdraws a waiting request.
    await release();
    return undefined;
  }
  return { requestId, release };
}
