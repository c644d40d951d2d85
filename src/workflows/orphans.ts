// Orphans of an ambiguous create: a video task a callback named that is not the run's task. Callback
// bodies are not signed (only the URL is), so a named id is a hint: it is cancelled only when the run's
// own create was ambiguous (a task of it may exist besides the run's) and one query of it shows the job's
// create made it. Any other id a callback names is left alone.
import { CancellationScope, condition } from '@temporalio/workflow';
import type { VideoTaskSummary } from '../contract/index.js';
import { isFinalVideoStatus } from '../contract/index.js';
import type { CreateTaskBody } from '../model/video/schemas.js';
import { videoTaskRules } from './generation-stage.js';
import { RemoteTask } from './remote-task.js';
import type { RunState } from './run-state.js';
import { queryOnce } from './task-waiter.js';

/** Fields of the create body a video task record may echo; where it does, they must be the job's. */
const ECHOED_FIELDS = ['model', 'ratio', 'resolution', 'duration', 'seed', 'generate_audio', 'watermark'] as const;

/**
 * The record shows the job's create made the task: it names the job's model, and every other field of
 * the body it echoes is the job's. A record that does not show the model cannot tell: not the job's.
 */
export function isJobsTask(record: Record<string, unknown>, body: CreateTaskBody): boolean {
  const data = record.data;
  const r =
    record.id === undefined && record.status === undefined && data && typeof data === 'object'
      ? (data as Record<string, unknown>)
      : record;
  if (r.model === undefined) return false;
  const sent = body as unknown as Record<string, unknown>;
  return ECHOED_FIELDS.every((k) => r[k] === undefined || r[k] === sent[k]);
}

/** Checks each task callbacks named besides the run's (none unless its create was ambiguous), once. */
export async function cancelOrphans(run: RunState): Promise<void> {
  for (const orphan of run.orphanTaskIds()) {
    run.noteOrphanChecked(orphan);
    await CancellationScope.nonCancellable(() => cancelIfJobs(run, orphan)).catch(() => undefined); // best effort
  }
}

/** One query of the named task (paced by its own RemoteTask); cancelled only if it is the job's and at work. */
async function cancelIfJobs(run: RunState, taskId: string): Promise<void> {
  const task = new RemoteTask(videoTaskRules(run.job));
  task.apply({ type: 'named', taskId });
  const read = await queryOnce<VideoTaskSummary>(
    task,
    { statusOf: (r) => r.status, retryAfterOf: (r) => r.retryAfterMs, observe: () => undefined },
    (pacing) =>
      run.acts.confirming.rtgQueryVideoTask.executeWithOptions(
        { summary: `look at video task ${taskId} (named by a callback)` },
        [{ taskId, minIntervalMs: 0, untilFinal: false, ...pacing }],
      ),
  );
  if (!('answer' in read))
    return run.noteError(`video task ${taskId}, named by a callback, could not be read: not cancelled`);
  const { answer } = read;
  if (!run.videoCreateBody || !isJobsTask(answer.raw, run.videoCreateBody)) {
    return run.noteError(`video task ${taskId}, named by a callback, is not the job's: not cancelled`);
  }
  if (isFinalVideoStatus(answer.status)) return;
  run.noteOrphanCancelled(taskId);
  await run.acts.cancelling.rtgCancelVideoTask.executeWithOptions({ summary: `cancel orphan video task ${taskId}` }, [
    { taskId },
  ]);
}

/** Cancels orphans as soon as a callback reveals them, while the run waits for its own task. */
export function watchForOrphans(run: RunState): void {
  void (async () => {
    for (;;) {
      await condition(() => run.orphanTaskIds().length > 0);
      await cancelOrphans(run);
    }
  })().catch(() => undefined); // ends with the run (its condition is cancelled with the root scope)
}
