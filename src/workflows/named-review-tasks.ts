// The review tasks callbacks named before any batch claimed them (an ambiguous submit's candidates), kept
// by RunState: each is read through its own RemoteTask, so its reads are paced like any task's, and the
// batch that claims it takes that record over (RemoteTask event `paced`).
import { condition } from '@temporalio/workflow';
import type { CallbackSignal, ReviewTaskSummary } from '../contract/index.js';
import type { RemoteTask, TaskPacing } from './remote-task.js';

/** What a read of a review task a callback named found: undefined when it could not read it this time. */
export type NamedRead = ReviewTaskSummary | 'unreadable' | undefined;

interface NamedReviewTask {
  task: RemoteTask;
  /** The read under way: batches that look meanwhile share it (never two queries at once). */
  reading?: Promise<NamedRead>;
  /** What a read found (the task, or that it is unreadable): later looks reuse it. */
  found?: ReviewTaskSummary | 'unreadable';
}

export class NamedReviewTasks {
  readonly #tasks = new Map<string, NamedReviewTask>();
  /** What callbacks said of a task before its record was made: the record hears them when it is. */
  readonly #heard = new Map<string, CallbackSignal[]>();

  /**
   * A callback naming a task: its record hears it, as a batch's RemoteTask hears its own. What it reported
   * decides whether a read whose answer was lost may be repeated (a final state other than `cancelled`).
   */
  heard(s: CallbackSignal): void {
    if (!s.taskId) return;
    const entry = this.#tasks.get(s.taskId);
    if (entry) entry.task.apply({ type: 'callback', taskId: s.taskId, status: s.status });
    else this.#heard.set(s.taskId, [...(this.#heard.get(s.taskId) ?? []), s]);
  }

  /** Whether a read of `taskId` may go out now (or has its answer): not while its record waits for a callback. */
  mayRead(taskId: string): boolean {
    const entry = this.#tasks.get(taskId);
    return !entry || entry.found !== undefined || entry.reading !== undefined || !waitsForCallback(entry.task);
  }

  /**
   * Reads a task a callback named for every batch that looks at it: one read at a time, each paced by the
   * task's own RemoteTask (`newTask`, told it was `named` and what its callbacks said); a read that found
   * nothing lets the next look read again, when that record allows: after a lost answer only once its
   * callback has reported a final state other than `cancelled` (until then undefined: see `mayRead`).
   */
  read(taskId: string, newTask: () => RemoteTask, read: (task: RemoteTask) => Promise<NamedRead>): Promise<NamedRead> {
    let entry = this.#tasks.get(taskId);
    if (!entry) {
      const task = newTask();
      task.apply({ type: 'named', taskId });
      for (const s of this.#heard.get(taskId) ?? []) task.apply({ type: 'callback', taskId, status: s.status });
      this.#heard.delete(taskId);
      entry = { task };
      this.#tasks.set(taskId, entry);
    }
    if (entry.found !== undefined) return Promise.resolve(entry.found);
    if (entry.reading) return entry.reading;
    // Its state cannot be known (a lost answer, then `cancelled`): never read again.
    if (entry.task.next().step === 'done') return Promise.resolve((entry.found = 'unreadable'));
    if (waitsForCallback(entry.task)) return Promise.resolve(undefined);
    const named = entry;
    named.reading = read(named.task).then(
      (found) => {
        named.reading = undefined;
        if (found !== undefined) named.found = found;
        return found;
      },
      (err: unknown) => {
        named.reading = undefined;
        throw err;
      },
    );
    return named.reading;
  }

  /**
   * The pacing record of reads of `taskId` made while no batch had claimed it, once none is under way
   * (undefined: never read that way). The batch that claims the task applies it to its own RemoteTask.
   */
  async pacingOf(taskId: string): Promise<TaskPacing | undefined> {
    await condition(() => this.#tasks.get(taskId)?.reading === undefined);
    return this.#tasks.get(taskId)?.task.pacing;
  }
}

/** After a lost answer a review task waits for its own callback: no read, not even a paced one, till then. */
function waitsForCallback(task: RemoteTask): boolean {
  const next = task.next();
  return next.step === 'wait' && next.pollAt === undefined;
}
