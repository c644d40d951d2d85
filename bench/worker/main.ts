// One benchmark worker process: the package's activities (counted) and workflows, plus the trivial
// yardstick, on one task queue; gauges sampled on a timer and handed to the parent on request.
// Run by the parent through `fork` with tsx; its configuration comes as JSON in BENCH_WORKER_CONFIG.
import { getHeapStatistics } from 'node:v8';
import { NativeConnection, Worker } from '@temporalio/worker';
import { createActivities } from '../../src/activities/index.js';
import { ReviewClient } from '../../src/services/review/client.js';
import { VideoClient } from '../../src/services/video/client.js';
import { countRunning, newGauge } from './counting.js';
import { installBenchObservability } from './observability.js';
import type { ChildMessage, ParentMessage, WorkerConfig, WorkerSample } from './protocol.js';
import { watchWorkflowThreads, workflowThreadHeap } from './thread-heap.js';

const send = (m: ChildMessage) => process.send?.(m);
const config = JSON.parse(process.env.BENCH_WORKER_CONFIG ?? '{}') as WorkerConfig;
// The Runtime is installed once, before the first connection (and the HTTP clients' observers).
const observability = await installBenchObservability(config.observability);

const video = new VideoClient({
  baseUrl: config.video.baseUrl,
  apiKey: config.video.apiKey,
  cancelMethod: 'POST',
  cancelPath: '/v1/task/cancel/{id}',
  timeoutMs: config.httpTimeoutMs,
  allowPrivateUrls: true,
});
// The benchmark's callback receiver listens on loopback.
const review = new ReviewClient({
  baseUrl: config.review.baseUrl,
  accessToken: config.review.accessToken,
  timeoutMs: config.httpTimeoutMs,
  allowPrivateUrls: true,
});
const gauge = newGauge();
const activities = countRunning(
  {
    ...createActivities({ video, review, callbacks: config.callbacks }),
    benchNoop: async (n: number) => n,
  },
  gauge,
);

watchWorkflowThreads();
const connection = await NativeConnection.connect({ address: config.address });
const worker = await Worker.create({
  connection,
  namespace: config.namespace,
  taskQueue: config.taskQueue,
  workflowBundle: { codePath: config.bundlePath },
  activities,
  shutdownGraceTime: '5s',
  plugins: observability.plugins,
  ...config.options,
});

const samples: WorkerSample[] = [];
const sampler = setInterval(() => {
  const s = worker.getStatus();
  samples.push({
    t: Date.now(),
    running: gauge.running,
    inFlightActivities: s.numInFlightNonLocalActivities,
    inFlightWorkflowActivations: s.numInFlightWorkflowActivations,
    cachedWorkflows: s.numCachedWorkflows,
    rssBytes: process.memoryUsage.rss(),
  });
}, config.sampleEveryMs);

process.on('message', (raw: ParentMessage) => {
  if (raw.type === 'samples') {
    const cpu = process.cpuUsage();
    send({
      type: 'samples',
      samples: samples.filter((s) => s.t >= raw.since),
      cpuMicros: cpu,
      activitiesStarted: gauge.started,
      peakRunning: gauge.peak,
    });
  } else if (raw.type === 'memory') {
    void workflowThreadHeap().then((thread) => {
      const m = process.memoryUsage();
      send({
        type: 'memory',
        rssBytes: m.rss,
        mainHeapUsed: m.heapUsed,
        mainHeapTotal: m.heapTotal,
        threadHeapUsed: thread.used,
        threadHeapTotal: thread.total,
        external: m.external + thread.external,
        cachedWorkflows: worker.getStatus().numCachedWorkflows,
      });
    });
  } else if (raw.type === 'stop') {
    if (worker.getState() === 'RUNNING') worker.shutdown();
  }
});
process.on('disconnect', () => {
  if (worker.getState() === 'RUNNING') worker.shutdown();
});

const running = worker.run();
send({
  type: 'ready',
  pid: process.pid,
  rssBytes: process.memoryUsage.rss(),
  maxCachedWorkflows: worker.options.maxCachedWorkflows,
  heapLimitBytes: getHeapStatistics().heap_size_limit,
});
try {
  await running;
} catch (err) {
  send({ type: 'error', message: err instanceof Error ? err.message : String(err) });
} finally {
  clearInterval(sampler);
  await Promise.allSettled([video.close(), review.close(), connection.close(), observability.stop()]);
  send({ type: 'stopped' });
  process.disconnect?.();
}
