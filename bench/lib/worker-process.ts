// The parent's side of a benchmark worker process: fork it (tsx), wait until it polls, ask for its
// gauges, stop it and wait for its exit.
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { ChildMessage, MemoryReading, WorkerConfig, WorkerSample } from '../worker/protocol.js';

const entry = fileURLToPath(new URL('../worker/main.ts', import.meta.url));

export interface WorkerStats {
  samples: WorkerSample[];
  cpuMicros: { user: number; system: number };
  activitiesStarted: number;
  peakRunning: number;
}

export interface WorkerProcess {
  pid: number;
  /** RSS right after start, before any job. */
  idleRssBytes: number;
  /** The sticky cache size the worker runs with (the SDK's default is derived from the heap limit). */
  maxCachedWorkflows: number;
  heapLimitBytes: number;
  stats(since: number): Promise<WorkerStats>;
  /** RSS and the V8 heaps (main thread, workflow threads) right now. */
  memory(): Promise<MemoryReading>;
  stop(): Promise<void>;
}

function next<T extends ChildMessage['type']>(
  child: ChildProcess,
  type: T,
  timeoutMs: number,
): Promise<Extract<ChildMessage, { type: T }>> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => done(new Error(`worker process: no '${type}' within ${timeoutMs} ms`)), timeoutMs);
    const onMessage = (m: ChildMessage) => {
      if (m.type === type) done(undefined, m as Extract<ChildMessage, { type: T }>);
      else if (m.type === 'error') done(new Error(`worker process: ${m.message}`));
    };
    const onExit = (code: number | null) => done(new Error(`worker process exited (${code}) before '${type}'`));
    function done(err?: Error, m?: Extract<ChildMessage, { type: T }>) {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
      if (err) reject(err);
      else resolve(m!);
    }
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}

export async function startWorkerProcess(config: WorkerConfig): Promise<WorkerProcess> {
  const child = fork(entry, [], {
    // BENCH_WORKER_NODE_ARGS, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`, to look inside the worker.
    execArgv: [
      '--import',
      'tsx',
      ...config.nodeArgs,
      ...(process.env.BENCH_WORKER_NODE_ARGS ?? '').split(' ').filter(Boolean),
    ],
    env: { ...process.env, BENCH_WORKER_CONFIG: JSON.stringify(config) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const ready = await next(child, 'ready', 120_000).catch(async (err: unknown) => {
    child.kill('SIGKILL');
    await exited;
    throw err;
  });
  return {
    pid: ready.pid,
    idleRssBytes: ready.rssBytes,
    maxCachedWorkflows: ready.maxCachedWorkflows,
    heapLimitBytes: ready.heapLimitBytes,
    async stats(since) {
      const reply = next(child, 'samples', 30_000);
      child.send({ type: 'samples', since });
      const m = await reply;
      return {
        samples: m.samples,
        cpuMicros: m.cpuMicros,
        activitiesStarted: m.activitiesStarted,
        peakRunning: m.peakRunning,
      };
    },
    async memory() {
      const reply = next(child, 'memory', 30_000);
      child.send({ type: 'memory' });
      const { type: _type, ...reading } = await reply;
      return reading;
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.send({ type: 'stop' });
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
