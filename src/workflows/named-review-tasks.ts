// The review tasks callbacks named before any batch claimed them (an ambiguous submit's candidates), kept
// by RunState: each is read through its own RemoteTask, so its reads are paced like any task's, and the
// batch that claims it takes that record over (RemoteTask event `paced`).
import { condition } from '@temporalio/workflow';
import type { ReviewTaskSummary } from '../contract/index.js';
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

  /**
   * Reads a task a callback named for every batch that looks at it: one read at a time, each paced by the
   * task's own RemoteTask (`newTask`, told it was `named`); a read that found nothing lets the next look
   * read again, when that record allows.
   */
  read(taskId: string, newTask: () => RemoteTask, read: (task: RemoteTask) => Promise<NamedRead>): Promise<NamedRead> {
    let entry = this.#tasks.get(taskId);
    if (!entry) {
      const task = newTask();
      task.apply({ type: 'named', taskId });
      entry = { task };
      this.#tasks.set(taskId, entry);
    }
    if (entry.found !== undefined) return Promise.resolve(entry.found);
    if (entry.reading) return entry.reading;
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
