// Worker Deployment versioning from the environment (docs/upgrading.md#worker-deployment-versioning):
// TEMPORAL_DEPLOYMENT_NAME + TEMPORAL_WORKER_BUILD_ID make the worker one version of a deployment, and
// TEMPORAL_VERSIONING_BEHAVIOR (default PINNED, config.ts) is how its runs move between versions. Unset =
// versioning off: the worker polls its task queue unversioned, as before. @temporalio/worker is imported
// for types only, so the package root can export this.
import type { WorkerOptions } from '@temporalio/worker';
import { ConfigError, parse } from '../config/env.js';
import { WORKER_DEPLOYMENT_DEFAULTS, workerDeploymentSchema } from '../config/worker.js';
import type { WorkerDeployment } from '../config/types.js';

/** The worker's deployment version, or undefined when versioning is off. */
export function loadWorkerDeployment(
  env: Record<string, string | undefined> = process.env,
): WorkerDeployment | undefined {
  const c = parse(workerDeploymentSchema, env);
  if (!c.TEMPORAL_DEPLOYMENT_NAME || !c.TEMPORAL_WORKER_BUILD_ID) {
    // A behaviour without a version would be silently ignored: say so instead.
    if (c.TEMPORAL_VERSIONING_BEHAVIOR)
      throw new ConfigError(
        'invalid configuration: TEMPORAL_VERSIONING_BEHAVIOR needs TEMPORAL_DEPLOYMENT_NAME and TEMPORAL_WORKER_BUILD_ID',
      );
    return undefined;
  }
  return {
    deploymentName: c.TEMPORAL_DEPLOYMENT_NAME,
    buildId: c.TEMPORAL_WORKER_BUILD_ID,
    defaultVersioningBehavior: c.TEMPORAL_VERSIONING_BEHAVIOR ?? WORKER_DEPLOYMENT_DEFAULTS.versioningBehavior,
  };
}

/**
 * The Worker.create options of that version: `{}` when versioning is off. Every workflow of the worker
 * gets the default behaviour (ours declare none of their own).
 */
export function workerDeploymentOptions(
  deployment: WorkerDeployment | undefined,
): Pick<WorkerOptions, 'workerDeploymentOptions'> {
  if (!deployment) return {};
  const { deploymentName, buildId, defaultVersioningBehavior } = deployment;
  return {
    workerDeploymentOptions: {
      version: { deploymentName, buildId },
      useWorkerVersioning: true,
      defaultVersioningBehavior,
    },
  };
}

/** For the startup line: `off`, or `<deployment>.<build id> (PINNED)`. */
export function describeWorkerDeployment(deployment: WorkerDeployment | undefined): string {
  return deployment
    ? `${deployment.deploymentName}.${deployment.buildId} (${deployment.defaultVersioningBehavior})`
    : 'off';
}
