// Worker Deployment versioning from the environment: unset is off (the worker as before), the name and the
// build id come together, PINNED is the default behaviour, and a half-set or unknown value is refused by
// name before the worker connects.
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/env.js';
import {
  describeWorkerDeployment,
  loadWorkerDeployment,
  workerDeploymentOptions,
} from '../../src/temporal/worker-deployment.js';

const both = { TEMPORAL_DEPLOYMENT_NAME: 'review-video', TEMPORAL_WORKER_BUILD_ID: '2f1c9ab' };

describe('Worker Deployment versioning settings', () => {
  it('unset (or empty) is off: no worker option, "off" at start', () => {
    for (const env of [{}, { TEMPORAL_DEPLOYMENT_NAME: '', TEMPORAL_WORKER_BUILD_ID: '' }]) {
      expect(loadWorkerDeployment(env)).toBeUndefined();
    }
    expect(workerDeploymentOptions(undefined)).toEqual({});
    expect(describeWorkerDeployment(undefined)).toBe('off');
  });

  it('name and build id make the worker a version of the deployment, PINNED by default', () => {
    const deployment = loadWorkerDeployment(both);
    expect(workerDeploymentOptions(deployment)).toEqual({
      workerDeploymentOptions: {
        version: { deploymentName: 'review-video', buildId: '2f1c9ab' },
        useWorkerVersioning: true,
        defaultVersioningBehavior: 'PINNED',
      },
    });
    expect(describeWorkerDeployment(deployment)).toBe('review-video.2f1c9ab (PINNED)');
  });

  it('AUTO_UPGRADE when asked for', () => {
    const deployment = loadWorkerDeployment({ ...both, TEMPORAL_VERSIONING_BEHAVIOR: 'AUTO_UPGRADE' });
    expect(deployment?.defaultVersioningBehavior).toBe('AUTO_UPGRADE');
  });

  it('refuses a half-set version, a behaviour without a version, and an unknown behaviour, naming the variable', () => {
    const refusals: Array<[Record<string, string>, string]> = [
      [{ TEMPORAL_DEPLOYMENT_NAME: 'review-video' }, 'TEMPORAL_WORKER_BUILD_ID'],
      [{ TEMPORAL_WORKER_BUILD_ID: '2f1c9ab' }, 'TEMPORAL_DEPLOYMENT_NAME'],
      [{ TEMPORAL_VERSIONING_BEHAVIOR: 'PINNED' }, 'TEMPORAL_VERSIONING_BEHAVIOR'],
      [{ ...both, TEMPORAL_VERSIONING_BEHAVIOR: 'SOMETIMES' }, 'TEMPORAL_VERSIONING_BEHAVIOR'],
    ];
    for (const [env, named] of refusals) {
      expect(() => loadWorkerDeployment(env)).toThrow(ConfigError);
      expect(() => loadWorkerDeployment(env)).toThrow(named);
    }
  });
});
