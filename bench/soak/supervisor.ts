// One supervised child process (the worker, the callback receiver, the Temporal dev server): its output
// goes to a log file (scanned for secrets at the end), it can be killed by its pid at any moment, and it
// is started again whenever it ends, killed or not, until stop().
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, type WriteStream } from 'node:fs';

export interface SupervisedOptions {
  name: string;
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  cwd?: string;
  logFile: string;
  /** A line on stdout/stderr that says the process is ready. */
  readyPattern: RegExp;
  /** Wait before starting again after an exit. */
  restartDelayMs: number;
}

export class Supervised {
  private child: ChildProcess | undefined;
  private readonly log: WriteStream;
  private stopping = false;
  private readyWaiters: Array<() => void> = [];
  private isReady = false;
  private restartTimer: NodeJS.Timeout | undefined;
  /** Exits we caused (kill) and exits we did not (crash, e.g. could not reach Temporal). */
  readonly counts = { starts: 0, kills: 0, unexpectedExits: 0 };
  private killedPids = new Set<number>();
  private paused = false;

  constructor(private readonly o: SupervisedOptions) {
    this.log = createWriteStream(o.logFile, { flags: 'a' });
  }

  get name(): string {
    return this.o.name;
  }

  get ready(): boolean {
    return this.isReady;
  }

  start(): void {
    if (this.stopping || this.child) return;
    this.counts.starts++;
    this.isReady = false;
    const child = spawn(this.o.command, this.o.args, {
      env: this.o.env,
      cwd: this.o.cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    this.log.write(`--- ${new Date().toISOString()} ${this.o.name} start #${this.counts.starts} pid ${child.pid}\n`);
    const onData = (chunk: Buffer) => {
      this.log.write(chunk);
      if (!this.isReady && this.o.readyPattern.test(chunk.toString('utf8'))) {
        this.isReady = true;
        for (const w of this.readyWaiters.splice(0)) w();
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('exit', (code, signal) => {
      this.log.write(
        `--- ${new Date().toISOString()} ${this.o.name} pid ${child.pid} exited (${signal ?? `code ${code}`})\n`,
      );
      if (this.child === child) this.child = undefined;
      this.isReady = false;
      if (child.pid !== undefined && !this.killedPids.delete(child.pid) && !this.stopping)
        this.counts.unexpectedExits++;
      if (!this.stopping && !this.paused) this.restartTimer = setTimeout(() => this.start(), this.o.restartDelayMs);
    });
  }

  /** Resolves once the (current or next) process says it is ready. */
  whenReady(): Promise<void> {
    if (this.isReady) return Promise.resolve();
    return new Promise((resolve) => this.readyWaiters.push(resolve));
  }

  /** whenReady(), or a rejection after `timeoutMs`. */
  waitReady(timeoutMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`${this.o.name} not ready after ${timeoutMs} ms (see ${this.o.logFile})`)),
        timeoutMs,
      );
    });
    return Promise.race([this.whenReady(), late]).finally(() => clearTimeout(timer));
  }

  /** Kills the current process by its pid; it is started again after `restartDelayMs` (unless paused). */
  kill(signal: NodeJS.Signals): boolean {
    const child = this.child;
    if (!child?.pid || child.exitCode !== null || child.signalCode !== null) return false;
    this.counts.kills++;
    this.killedPids.add(child.pid);
    // Not ready from now on: whenReady() waits for the next process.
    this.isReady = false;
    return child.kill(signal);
  }

  /** Stops the process and keeps it down until resume(). */
  async pause(signal: NodeJS.Signals, timeoutMs = 20_000): Promise<void> {
    this.paused = true;
    clearTimeout(this.restartTimer);
    const child = this.child;
    if (!child) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    this.kill(signal);
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    await exited;
    clearTimeout(timer);
  }

  resume(): void {
    this.paused = false;
    this.start();
  }

  private stopped: Promise<void> | undefined;

  /** Stops the process for good (SIGTERM, then SIGKILL after `timeoutMs`) and closes the log. */
  stop(timeoutMs = 15_000): Promise<void> {
    this.stopped ??= this.stopOnce(timeoutMs);
    return this.stopped;
  }

  private async stopOnce(timeoutMs: number): Promise<void> {
    this.stopping = true;
    clearTimeout(this.restartTimer);
    const child = this.child;
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      this.killedPids.add(child.pid!);
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      await exited;
      clearTimeout(timer);
    }
    await new Promise<void>((resolve) => this.log.end(() => resolve()));
  }

  /** Last resort when the runner itself exits: no child outlives it. */
  killNow(): void {
    this.stopping = true;
    clearTimeout(this.restartTimer);
    const child = this.child;
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}
