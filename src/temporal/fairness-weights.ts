// The tenants' weights (ADMISSION_TENANT_WEIGHTS) given to Temporal's own task-queue fairness as well as
// to the quota gates: one UpdateTaskQueueConfig per task-queue type, when the worker starts. The weights
// live with the workers' configuration, not in each start's `priority.fairnessWeight`, so that the jobs
// a batch or another service starts get them too. Needs fairness on the server (docs/operations.md).
import type { NativeConnection } from '@temporalio/worker';
import proto from '@temporalio/proto';

const { TaskQueueType } = proto.temporal.api.enums.v1;

/** Sets `weights` (fairnessKey → weight) on the task queue's workflow and activity tasks. */
export async function applyTenantWeights(
  connection: Pick<NativeConnection, 'workflowService'>,
  target: { namespace: string; taskQueue: string },
  weights: Record<string, number>,
): Promise<void> {
  for (const taskQueueType of [TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW, TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY]) {
    await connection.workflowService.updateTaskQueueConfig({
      namespace: target.namespace,
      identity: 'review-video worker (ADMISSION_TENANT_WEIGHTS)',
      taskQueue: target.taskQueue,
      taskQueueType,
      setFairnessWeightOverrides: weights,
    });
  }
}
