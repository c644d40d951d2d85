// The activity that lets a run reach its quota key's AdmissionGate when the gate is not running:
// signal-with-start, which workflow code cannot do (src/workflows/admission/requester.ts tries a plain
// signal first). Retried safely: the gate ignores a request id it already has.
import { Context } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import { acquireSlotSignal, admissionGateId, type AdmissionActivities } from '../contract/index.js';

export interface AdmissionActivityDependencies {
  client: Client;
  /** Where the gate runs; by default the task queue of the activity (a worker with the package's workflows). */
  taskQueue?: string;
}

export function createAdmissionActivities(deps: AdmissionActivityDependencies): AdmissionActivities {
  return {
    async rtgAcquireSlot(input) {
      await deps.client.workflow.signalWithStart('AdmissionGate', {
        workflowId: admissionGateId(input.key),
        taskQueue: deps.taskQueue ?? Context.current().info.taskQueue,
        args: [
          {
            key: input.key,
            capacity: input.capacity,
            ...(input.leaseMs !== undefined ? { leaseMs: input.leaseMs } : {}),
          },
        ],
        signal: acquireSlotSignal,
        signalArgs: [input.request],
      });
    },
  };
}
