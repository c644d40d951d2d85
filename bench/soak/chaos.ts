// The process-level chaos of a soak run: each worker process (several on one task queue) SIGKILLed at
// random intervals on its own schedule (and started again at once by its supervisor), the callback
// receiver restarted at random intervals, and the Temporal server stopped and started once on the same
// database file.
import type { Connection } from '@temporalio/client';
import type { Rng } from './rng.js';
import type { Supervised } from './supervisor.js';
import type { TemporalServer } from './temporal-server.js';

export interface ChaosOptions {
  workerKillEveryMs: [number, number];
  receiverRestartEveryMs: [number, number];
  serverDownMs: number;
}

export interface ServerOutage {
  stoppedAt: number;
  startedAt: number;
  /** From the stop signal until the frontend answered again. */
  downMs: number;
}

export class Chaos {
  private timers = new Set<NodeJS.Timeout>();
  private running = false;
  readonly counts: { workerKills: number; workerKillsEach: number[]; receiverRestarts: number };
  outage: ServerOutage | undefined;

  constructor(
    private readonly rng: Rng,
    private readonly o: ChaosOptions,
    private readonly workers: Supervised[],
    private readonly receiver: Supervised,
  ) {
    this.counts = { workerKills: 0, workerKillsEach: workers.map(() => 0), receiverRestarts: 0 };
  }

  start(): void {
    this.running = true;
    this.workers.forEach(
      (worker, i) =>
        void this.killLoop(
          worker,
          this.o.workerKillEveryMs,
          () => 'SIGKILL',
          () => {
            this.counts.workerKills++;
            this.counts.workerKillsEach[i]!++;
          },
        ),
    );
    // Mostly a crash, sometimes a clean stop: both must lose nothing.
    void this.killLoop(
      this.receiver,
      this.o.receiverRestartEveryMs,
      () => (this.rng.chance(0.7) ? 'SIGKILL' : 'SIGTERM'),
      () => this.counts.receiverRestarts++,
    );
  }

  stop(): void {
    this.running = false;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }

  /**
   * Stops the Temporal server (SIGTERM), keeps it down for `serverDownMs`, starts it again on the same
   * port and database file and waits until it serves. Faults go on meanwhile: a task made by a committed
   * submit or create whose callbacks all come while the server is down cannot be confirmed, and its run
   * ends SubmitUnconfirmed (the verdict checks that this is why).
   */
  async serverOutage(server: TemporalServer, connection: Connection): Promise<ServerOutage> {
    const stoppedAt = Date.now();
    await server.process.pause('SIGTERM');
    await sleep(this.o.serverDownMs);
    server.process.resume();
    await server.process.waitReady(120_000);
    await server.waitServing(connection, 120_000);
    const startedAt = Date.now();
    this.outage = { stoppedAt, startedAt, downMs: startedAt - stoppedAt };
    return this.outage;
  }

  /**
   * Kills the process a random while after it became ready: the interval counts up-time, so a process that
   * takes long to start on a loaded machine still gets to work between two kills.
   */
  private async killLoop(
    target: Supervised,
    range: [number, number],
    signal: () => NodeJS.Signals,
    counted: () => void,
  ): Promise<void> {
    while (this.running) {
      await target.whenReady();
      await this.sleep(this.rng.int(range[0], range[1]));
      if (this.running && target.kill(signal())) counted();
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        resolve();
      }, ms);
      this.timers.add(timer);
    });
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
