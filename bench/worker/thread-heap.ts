// The V8 heap of the SDK's workflow thread(s), where every cached workflow lives: `process.memoryUsage()`
// sees only the main thread's isolate, and Node 20 cannot read another thread's heap statistics. So the
// Worker class is wrapped before the SDK creates its threads: each thread first answers heap questions on
// a port of its own, then loads the SDK's thread module unchanged. Benchmark worker process only.
import type { HeapInfo } from 'node:v8';
import workerThreads, { MessageChannel, type MessagePort, type WorkerOptions } from 'node:worker_threads';

const ports: MessagePort[] = [];

// Plain CommonJS, evaluated as the thread's entry point (`eval: true`).
const PRELUDE = `
const { workerData } = require('node:worker_threads');
const v8 = require('node:v8');
const port = workerData.benchHeapPort;
port.on('message', () => port.postMessage(v8.getHeapStatistics()));
port.unref();
require(workerData.benchTarget);
`;

/** Call before `Worker.create`: the SDK (CommonJS) reads `worker_threads.Worker` when it starts a thread. */
export function watchWorkflowThreads(): void {
  const Original = workerThreads.Worker;
  workerThreads.Worker = class extends Original {
    constructor(filename: string | URL, options: WorkerOptions = {}) {
      if (options.eval || typeof filename !== 'string') {
        super(filename, options);
        return;
      }
      const { port1, port2 } = new MessageChannel();
      super(PRELUDE, {
        ...options,
        eval: true,
        workerData: { benchTarget: filename, benchHeapPort: port2 },
        transferList: [...(options.transferList ?? []), port2],
      });
      port1.unref();
      ports.push(port1);
      this.once('exit', () => ports.splice(ports.indexOf(port1), 1));
    }
  };
}

function ask(port: MessagePort): Promise<HeapInfo | undefined> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(undefined), 5_000);
    port.once('message', (m: HeapInfo) => {
      clearTimeout(timer);
      resolve(m);
    });
    port.postMessage('heap');
  });
}

/** Summed over the workflow threads: V8 heap used and committed, and external memory, in bytes. */
export async function workflowThreadHeap(): Promise<{
  used: number;
  total: number;
  external: number;
  threads: number;
}> {
  const infos = (await Promise.all(ports.map(ask))).filter((x): x is HeapInfo => x !== undefined);
  return {
    used: infos.reduce((a, x) => a + x.used_heap_size, 0),
    total: infos.reduce((a, x) => a + x.total_heap_size, 0),
    external: infos.reduce((a, x) => a + x.external_memory, 0),
    threads: infos.length,
  };
}
