// Runs the real CLI (src/cli.ts through tsx) in a child process against the test run's dev server.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { inject } from 'vitest';
import { temporalAddress } from './temporal.js';

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
export const cliPath = fileURLToPath(new URL('../../src/cli.ts', import.meta.url));

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function cliEnv(taskQueue: string): NodeJS.ProcessEnv {
  return {
    ...process.env,
    TEMPORAL_ADDRESS: temporalAddress(),
    TEMPORAL_NAMESPACE: inject('temporalNamespace'),
    TEMPORAL_TASK_QUEUE: taskQueue,
    TEMPORAL_PROFILE: '',
    FORCE_COLOR: '0',
  };
}

export function runCli(
  args: string[],
  options: { taskQueue: string; stdin?: string; timeoutMs?: number; env?: Record<string, string | undefined> },
): Promise<CliRun> {
  // An `undefined` in options.env removes that variable from the child's environment.
  const env = { ...cliEnv(options.taskQueue), ...options.env };
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete env[k];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', cliPath, ...args], {
      cwd: repoRoot,
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(options.stdin ?? '');
  });
}
