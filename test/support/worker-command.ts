// How a child process runs our worker (src/worker.ts through tsx, as `npm run worker` runs it), outside
// vitest: the tests' worker processes (worker-process.ts) and the tools' workers (bench/quota, bench/soak,
// bench/codec) start it the same way and wait for the same line.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const workerEntry = fileURLToPath(new URL('../../src/worker.ts', import.meta.url));

/** The line our worker logs once it polls its task queue. */
export const WORKER_READY = 'worker: task queue';

/** Node's arguments that run our worker; `nodeArgs` (e.g. a heap limit) come first. */
export function workerArgs(nodeArgs: string[] = []): string[] {
  return [...nodeArgs, '--import', 'tsx', workerEntry];
}

export interface WorkerProcess {
  pid: number;
  /** Everything it printed so far. */
  output(): string;
  /** SIGTERM, then waits for the exit (SIGKILL after 15 s). */
  stop(): Promise<number | null>;
}

/** Starts our worker with `env` over this process's environment; resolves once it polls. */
export async function spawnWorkerProcess(env: Record<string, string>, nodeArgs: string[] = []): Promise<WorkerProcess> {
  const child = spawn(process.execPath, workerArgs(nodeArgs), {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    const onData = (d: Buffer) => {
      output += d.toString();
      if (output.includes(WORKER_READY)) resolve();
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    void exited.then((code) => reject(new Error(`worker process exited (${code}) before it was ready:\n${output}`)));
  });
  return {
    pid: child.pid ?? 0,
    output: () => output,
    async stop() {
      if (child.exitCode !== null) return child.exitCode;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}
