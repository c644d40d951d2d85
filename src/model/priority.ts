// A job's place in line: its priority and its tenant, for the provider-quota gate and for Temporal's
// task-queue priority and fairness. Pure: shared by the workflows, the gate and the client helpers.

/** Priorities run from 1 (highest) to 5 (Temporal's default range); a job without one is 3. */
export const DEFAULT_PRIORITY = 3;
/** The tenant of a job that names none and belongs to no batch. */
export const DEFAULT_FAIRNESS_KEY = 'default';

/** Temporal's `Priority` (@temporalio/common), as our runs set it. */
export interface TaskQueuePriority {
  priorityKey: number;
  fairnessKey: string;
}
