// The worker process of the store benchmark: our activities configured from the environment (VIDEO_STORE
// included), so the benchmark can read this process's RSS while it streams a video to the store.
import { NativeConnection, Worker } from '@temporalio/worker';
import { activitiesFromEnv } from '../../src/activities/index.js';
import { workflowPreloadModules, workflowsPath } from '../../src/workflows-path.js';

const { activities, close } = activitiesFromEnv(process.env);
const connection = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS! });
const worker = await Worker.create({
  connection,
  namespace: process.env.TEMPORAL_NAMESPACE ?? 'default',
  taskQueue: process.env.TEMPORAL_TASK_QUEUE!,
  workflowsPath,
  bundlerOptions: { preloadModules: workflowPreloadModules },
  activities,
});
console.log('store-bench worker ready');
await worker.run();
await close();
await connection.close();
