// A long-running entry point (`npm run dev`, `npm run demo`) in a child process, as a user starts it:
// its output collected, waited on by text, stopped by a signal, its exit awaited.
import { spawn, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import { repoRoot } from '../support/run-cli.js';
import { until } from '../support/until.js';

export interface Running {
  child: ChildProcess;
  readonly stdout: string;
  readonly stderr: string;
  /** Resolves with the exit code once the process has exited. */
  exited: Promise<number | null>;
  waitFor(text: string | RegExp, timeoutMs?: number): Promise<void>;
}

/** A TypeScript entry of ours through tsx; the workspace packages (the sandbox) from their sources. */
export function startEntry(args: string[], env: NodeJS.ProcessEnv): Running {
  return start(process.execPath, ['--conditions=review-video-source', '--import', 'tsx', ...args], env, false);
}

/**
 * An npm script, in a process group of its own as a terminal runs it: `interrupt` then sends SIGINT to the
 * whole group, as Ctrl-C does (npm, the shell, node and the Temporal server each receive it).
 */
export function startNpmScript(args: string[], env: NodeJS.ProcessEnv): Running & { interrupt(): void; kill(): void } {
  const running = start('npm', args, env, true);
  const group = (signal: NodeJS.Signals) => {
    try {
      process.kill(-running.child.pid!, signal);
    } catch {
      // The group has exited already.
    }
  };
  return Object.assign(running, { interrupt: () => group('SIGINT'), kill: () => group('SIGKILL') });
}

function start(command: string, args: string[], env: NodeJS.ProcessEnv, detached: boolean): Running {
  const child = spawn(command, args, {
    cwd: repoRoot,
    env: { ...env, FORCE_COLOR: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached,
  });
  let stdout = '';
  let stderr = '';
  let exitCode: number | null | undefined;
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve((exitCode = code))));
  return {
    child,
    get stdout() {
      return stdout;
    },
    get stderr() {
      return stderr;
    },
    exited,
    waitFor: (text, timeoutMs = 150_000) =>
      until(
        () => {
          if (exitCode !== undefined)
            throw new Error(`exited ${exitCode} before printing ${text}:\n${stdout}\n${stderr}`);
          return typeof text === 'string' ? stdout.includes(text) : text.test(stdout);
        },
        String(text),
        timeoutMs,
      ),
  };
}

/** The `export NAME=value` lines a process printed. */
export function printedEnv(stdout: string): Record<string, string> {
  return Object.fromEntries([...stdout.matchAll(/^\s*export ([A-Z_]+)=(\S+)$/gm)].map((m) => [m[1]!, m[2]!]));
}

/** Whether something still listens on host:port (a refused connection: nothing does). */
export function listening(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** process.env without the variables that would point a CLI elsewhere than the printed ones. */
export function cleanEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const k of Object.keys(env)) if (/^(TEMPORAL_|PAYLOAD_ENCRYPTION_|VIDEO_STORE$)/.test(k)) delete env[k];
  return env;
}
