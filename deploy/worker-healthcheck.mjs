// Docker healthcheck of the worker container (docker-compose.yml): healthy when Temporal lists a poller
// from this container (the SDK's default identity is `<pid>@<hostname>`) on the workflow task queue.
// Connects like the worker does; TEMPORAL_TASK_QUEUE names the queue. Exit 0 = healthy.
import os from 'node:os';
import { Connection } from '@temporalio/client';
import { loadClientConnectConfig } from '@temporalio/envconfig';

const TASK_QUEUE_KIND_NORMAL = 1;
const TASK_QUEUE_TYPE_WORKFLOW = 1;
const MAX_POLL_AGE_MS = 150_000; // a long poll lasts up to ~70 s

const taskQueue = process.env.TEMPORAL_TASK_QUEUE || 'video-generation';
const host = os.hostname();

// Same precedence as src/temporal/client-connection.ts: an envconfig profile (API key, TLS) as the base,
// and TEMPORAL_ADDRESS / TEMPORAL_NAMESPACE from the environment win.
function connectConfig() {
  let base = {};
  try {
    base = { ...loadClientConnectConfig().connectionOptions };
  } catch {
    // No profile file or an unreadable one: plain address.
  }
  return {
    connectionOptions: { ...base, address: process.env.TEMPORAL_ADDRESS || base.address || 'localhost:7233' },
    namespace: process.env.TEMPORAL_NAMESPACE || 'default',
  };
}

const { connectionOptions, namespace } = connectConfig();
let connection;
try {
  connection = await Connection.connect({ ...connectionOptions, connectTimeout: 5_000 });
  const res = await connection.workflowService.describeTaskQueue({
    namespace,
    taskQueue: { name: taskQueue, kind: TASK_QUEUE_KIND_NORMAL },
    taskQueueType: TASK_QUEUE_TYPE_WORKFLOW,
  });
  // Pollers stay listed for minutes after they stop: count those seen within the last long-poll cycles.
  const recentMs = Date.now() - MAX_POLL_AGE_MS;
  const mine = (res.pollers ?? []).filter(
    (p) => (p.identity ?? '').includes(host) && Number(p.lastAccessTime?.seconds ?? 0) * 1000 >= recentMs,
  );
  if (mine.length === 0) {
    console.error(`unhealthy: no recent poller from ${host} on task queue ${taskQueue} (namespace ${namespace})`);
    process.exitCode = 1;
  } else {
    console.log(`healthy: ${mine.length} poller(s) from ${host} on task queue ${taskQueue}`);
  }
} catch (err) {
  console.error(`unhealthy: ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = 1;
} finally {
  await connection?.close().catch(() => {});
}
