// The soak's worker: the production worker (src/worker.ts runWorker, configured from the environment)
// with the workflow code bundled once by the runner, so a restart after SIGKILL takes seconds, not a
// webpack build. Same task queue on every start.
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { runWorker } from '../../src/worker.js';

const codePath = process.env.SOAK_WORKFLOW_BUNDLE;
if (!codePath) throw new Error('SOAK_WORKFLOW_BUNDLE is required');

// WARN and above: activity failures and worker errors land in the log the soak scans for secrets.
Runtime.install({ logger: new DefaultLogger('WARN') });

runWorker(process.env, {
  workflowBundle: { codePath },
  // A fresh worker replays every open workflow (its cache died with the last one): take a few workflow
  // tasks at a time, so none waits in the worker past its 10 s time-out on a busy 2-core machine; the
  // rest wait on the server, where waiting costs nothing.
  maxConcurrentWorkflowTaskExecutions: 4,
}).catch((err: unknown) => {
  console.error(`worker: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
