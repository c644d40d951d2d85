// RunState without a workflow: how it routes callbacks to each task's RemoteTask, the task ids callbacks
// named (ambiguous submits, orphans), and the progress it owns. Milliseconds; no server.
import { describe, expect, it, vi } from 'vitest';
import type { ReviewTaskSummary } from '../../src/contract/index.js';
import { validateReviewThenGenerateInput, type ReviewThenGenerateJob } from '../../src/job/input.js';
import type { RunActivities } from '../../src/workflows/run-activities.js';
import { RemoteTask } from '../../src/workflows/remote-task.js';
import { reviewTaskRules } from '../../src/workflows/review-stage.js';
import { videoTaskRules } from '../../src/workflows/generation-stage.js';
import { RunState } from '../../src/workflows/run-state.js';

function job(): ReviewThenGenerateJob {
  const v = validateReviewThenGenerateInput({
    task: {
      model: 'm',
      content: [
        { type: 'text', text: 'p' },
        { type: 'image_url', image_url: { url: 'https://cdn.example.com/a.jpg' } },
      ],
    },
    review: {},
  });
  if (!v.ok) throw new Error('fixture input is invalid');
  return v.job;
}

const newRun = (show = vi.fn(), index = vi.fn()) => ({
  run: new RunState(job(), {} as RunActivities, show, index),
  show,
  index,
});

describe('RunState: callbacks', () => {
  const batch = { assetType: 'Image' as const, urls: ['https://cdn.example.com/a.jpg'] };

  it("gives each review task its callbacks: one that came before the submit's answer is read once the id is known", () => {
    const { run } = newRun();
    const task = new RemoteTask(reviewTaskRules(job()));
    run.planReviewTask(0, batch, task);
    run.onReviewCallback({ taskId: 'r1', status: 'completed' });
    expect(run.unclaimedReviewTaskIds()).toEqual(['r1']);
    task.apply({ type: 'submitted', taskId: 'r1', at: 0 });
    run.setReviewTask(0, 'r1', 'pending');
    expect(run.unclaimedReviewTaskIds()).toEqual([]);
    expect(task.next()).toMatchObject({ step: 'query', why: 'confirm' });
  });

  it("a review callback naming another task leaves a batch's task alone; one naming none wakes every batch", () => {
    const { run } = newRun();
    const a = new RemoteTask(reviewTaskRules(job()));
    const b = new RemoteTask(reviewTaskRules(job()));
    run.planReviewTask(0, batch, a);
    run.planReviewTask(1, batch, b);
    a.apply({ type: 'submitted', taskId: 'a', at: 0 });
    b.apply({ type: 'submitted', taskId: 'b', at: 0 });
    run.onReviewCallback({ taskId: 'b', status: 'completed' });
    expect(a.callbackPending).toBe(false);
    expect(b.callbackPending).toBe(true);
    run.onReviewCallback({});
    expect(a.callbackPending).toBe(true);
  });

  it('video callbacks: running needs no query, final does; another task is a possible orphan only after an ambiguous create', () => {
    const { run } = newRun();
    const task = new RemoteTask(videoTaskRules(job()));
    run.planVideoTask(task, job().task);
    run.onVideoCallback({ taskId: 'v1', status: 'running' });
    expect(run.namedVideoTaskIds()).toEqual(['v1']);
    task.apply({ type: 'submitted', taskId: 'v2', at: 0 });
    run.setTaskId('v2');
    run.onVideoCallback({ taskId: 'v2', status: 'running' });
    expect(task.callbackPending).toBe(false);
    run.onVideoCallback({ taskId: 'v2', status: 'succeeded' });
    expect(task.callbackPending).toBe(true);
    // The create was answered: an id a body names is no task of this run (issue 36, 8).
    expect(run.orphanTaskIds()).toEqual([]);

    const { run: unsure } = newRun();
    const created = new RemoteTask(videoTaskRules(job()));
    unsure.planVideoTask(created, job().task);
    created.apply({ type: 'submitAmbiguous' });
    unsure.onVideoCallback({ taskId: 'v1', status: 'running' });
    created.apply({ type: 'resubmit' });
    created.apply({ type: 'submitted', taskId: 'v2', at: 0 });
    unsure.setTaskId('v2');
    expect(unsure.orphanTaskIds()).toEqual(['v1']);
    unsure.noteOrphanChecked('v1');
    expect(unsure.orphanTaskIds()).toEqual([]);
  });

  it('a review task a callback named is read through its own RemoteTask, one read at a time, and its pacing kept (issue 36, 1)', async () => {
    const { run } = newRun();
    const reads: number[] = [];
    const newTask = () => new RemoteTask(reviewTaskRules(job()));
    let release!: () => void;
    const read = (task: RemoteTask) => {
      reads.push(task.pacing.notBefore);
      task.apply({ type: 'querySent' });
      return new Promise<undefined>((resolve) => {
        release = () => {
          task.apply({ type: 'queryFailed', at: 10_000, retryAfterMs: 5_000 });
          resolve(undefined);
        };
      });
    };
    const first = run.namedReviewTasks.read('r9', newTask, read);
    const second = run.namedReviewTasks.read('r9', newTask, read);
    expect(reads).toHaveLength(1);
    release();
    expect(await first).toBeUndefined();
    expect(await second).toBeUndefined();
    void run.namedReviewTasks.read('r9', newTask, read);
    // The read after a refusal waits for its Retry-After.
    expect(reads).toEqual([0, 15_000]);
  });
});

describe('RunState: progress', () => {
  it('is written only through its methods, shown at each change of task or stage, indexed once per filtered stage', () => {
    // The progress is one object that changes: record its stage at each call.
    const indexed: string[] = [];
    const { run, show, index } = newRun(
      vi.fn(),
      vi.fn((_job, p: { stage: string }) => void indexed.push(p.stage)),
    );
    run.planReviewTask(
      0,
      { assetType: 'Image', urls: ['https://cdn.example.com/a.jpg'] },
      new RemoteTask(reviewTaskRules(job())),
    );
    run.setReviewTask(0, 'r1', 'pending');
    run.observeReview(0, {
      taskId: 'r1',
      status: 'processing',
      doneCount: 0,
      totalCount: 1,
      items: [],
      raw: {},
      queries: 2,
    } as unknown as ReviewTaskSummary);
    run.setStage('generating');
    run.noteError('create ambiguous (1): HTTP 500');
    expect(run.progress).toMatchObject({
      stage: 'generating',
      review: { tasks: [{ taskId: 'r1', status: 'processing', doneCount: 0, totalCount: 1, urls: 1 }] },
      queries: { review: 2 },
      lastError: 'create ambiguous (1): HTTP 500',
    });
    expect(show).toHaveBeenCalledTimes(2);
    expect(indexed).toEqual(['reviewing', 'generating']);
    run.setStage('creating'); // shown, not indexed
    run.setTaskId('v1');
    run.setStage('generating'); // already indexed
    expect(index).toHaveBeenCalledTimes(2);
    run.fail(new Error('boom'));
    expect(run.progress).toMatchObject({ stage: 'failed', lastError: 'boom' });
  });
});
