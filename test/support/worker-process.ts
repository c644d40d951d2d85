// Our worker (`src/worker.ts`, as `npm run worker` runs it) in a child process of its own: tests of
// several worker processes on one task queue use it, so nothing is shared in memory between workers.
import { inject } from 'vitest';
import { spawnWorkerProcess, type WorkerProcess } from './worker-command.js';

export type { WorkerProcess } from './worker-command.js';

/**
 * Starts `src/worker.ts` with `env`. It loads the run's prebuilt workflow bundle (WORKFLOW_BUNDLE_PATH, as
 * the image's worker loads its own) rather than bundling at start, unless `env` names another.
 */
export function startWorkerProcess(env: Record<string, string>): Promise<WorkerProcess> {
  return spawnWorkerProcess({ WORKFLOW_BUNDLE_PATH: inject('workflowBundlePath'), ...env }, [
    '--max-old-space-size=256',
  ]);
}
