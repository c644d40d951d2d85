// Our worker (`src/worker.ts`, as `npm run worker` runs it) in a child process of its own: tests of
// several worker processes on one task queue use it, so nothing is shared in memory between workers.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { inject } from 'vitest';

const workerEntry = fileURLToPath(new URL('../../src/worker.ts', import.meta.url));

export interface WorkerProcess {
  pid: number;
  /** Everything it printed so far. */
  output(): string;
  /** SIGTERM, then waits for the exit (SIGKILL after 15 s). */
  stop(): Promise<number | null>;
}

/** The service settings of a worker that talks to this sandbox (loopback addresses allowed). */
export function sandboxServiceEnv(sandbox: {
  videoBaseUrl: string;
  apiKey: string;
  reviewBaseUrl: string;
  accessToken: string;
}): Record<string, string> {
  return {
    VIDEO_API_BASE_URL: sandbox.videoBaseUrl,
    VIDEO_API_KEY: sandbox.apiKey,
    REVIEW_API_BASE_URL: sandbox.reviewBaseUrl,
    REVIEW_ACCESS_TOKEN: sandbox.accessToken,
    ALLOW_PRIVATE_URLS: 'true',
  };
}

/**
 * Starts `src/worker.ts` with `env`. It loads the run's prebuilt workflow bundle (WORKFLOW_BUNDLE_PATH, as
 * the image's worker loads its own) rather than bundling at start, unless `env` names another.
 */
export async function startWorkerProcess(env: Record<string, string>): Promise<WorkerProcess> {
  const child = spawn(process.execPath, ['--max-old-space-size=256', '--import', 'tsx', workerEntry], {
    env: { ...process.env, WORKFLOW_BUNDLE_PATH: inject('workflowBundlePath'), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    const onData = (d: Buffer) => {
      output += d.toString();
      if (output.includes('worker: task queue')) resolve();
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
