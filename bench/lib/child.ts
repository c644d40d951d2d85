// Runs a one-shot benchmark process (tsx), hands it its configuration as JSON in an environment
// variable, and resolves with the single message it sends back.
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export function runChild<T>(entryFromBench: string, envName: string, config: unknown, timeoutMs: number): Promise<T> {
  const entry = fileURLToPath(new URL(`../${entryFromBench}`, import.meta.url));
  const child = fork(entry, [], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, [envName]: JSON.stringify(config) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise<T>((resolve, reject) => {
    let reply: { value: T } | undefined;
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('message', (m) => (reply = { value: m as T }));
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      if (reply) resolve(reply.value);
      else
        reject(
          new Error(
            `${entryFromBench} exited (${signal ?? code}) without a report${signal === 'SIGKILL' ? ` (killed after ${timeoutMs} ms)` : ''}`,
          ),
        );
    });
  });
}
