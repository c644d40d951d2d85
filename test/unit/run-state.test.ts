// RunState without a workflow: the callbacks it keeps, the record that paces queries across workers, and
// the progress it owns. Milliseconds; no server.
import { describe, expect, it, vi } from 'vitest';
import type { ReviewTaskSummary } from '../../src/contract/index.js';
import { validateReviewThenGenerateInput, type ReviewThenGenerateJob } from '../../src/workflows/input.js';
import type { RunActivities } from '../../src/workflows/run-activities.js';
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
  it('keeps a review callback that comes before the submit answer, and counts it as unclaimed until a batch takes its task', () => {
    const { run } = newRun();
    run.planReviewTask(0, { assetType: 'Image', urls: ['https://cdn.example.com/a.jpg'] });
    run.onReviewCallback({ taskId: 'r1', status: 'completed' });
    expect(run.reviewCallbackPending('r1')).toBe(true);
    expect(run.unclaimedReviewTaskIds()).toEqual(['r1']);
    run.setReviewTask(0, 'r1', 'pending');
    expect(run.unclaimedReviewTaskIds()).toEqual([]);
    run.takeReviewCallback('r1');
    expect(run.reviewCallbackPending('r1')).toBe(false);
  });

  it('a review callback without a task id wakes every waiting batch once', () => {
    const { run } = newRun();
    run.onReviewCallback({});
    expect(run.reviewCallbackPending('a')).toBe(true);
    expect(run.reviewCallbackPending('b')).toBe(true);
    run.takeReviewCallback('a');
    expect(run.reviewCallbackPending('b')).toBe(false);
  });

  it("video callbacks: running needs no query, final does; a task other than the run's is an orphan to cancel", () => {
    const { run } = newRun();
    run.onVideoCallback({ taskId: 'v1', status: 'running' });
    expect(run.videoCallbackTaskIds).toEqual(['v1']);
    expect(run.videoCallbackPending()).toBe(false);
    run.setTaskId('v2');
    run.onVideoCallback({ taskId: 'v2', status: 'succeeded' });
    expect(run.videoCallbackPending()).toBe(true);
    expect(run.orphanTaskIds()).toEqual(['v1']);
    run.noteOrphanCancelled('v1');
    expect(run.orphanTaskIds()).toEqual([]);
    expect(run.progress.orphanTasksCancelled).toEqual(['v1']);
  });
});

describe('RunState: query pacing', () => {
  it('the next query is not before the latest nextQueryAt recorded, with the longest Retry-After seen', () => {
    const { run } = newRun();
    expect(run.queryPacing('review:r1')).toEqual({ knownRetryAfterMs: 0 });
    run.recordQuery('review:r1', 5_000, 2_000);
    run.recordQuery('review:r1', 4_000);
    expect(run.queryPacing('review:r1')).toEqual({ notBefore: 5_000, knownRetryAfterMs: 2_000 });
    expect(run.queryPacing('review:other')).toEqual({ knownRetryAfterMs: 0 });
  });

  it('a query that ended without an answer counts as made now, held off by the interval or the known Retry-After', () => {
    const { run } = newRun();
    run.recordQuery('review:r1', 0, 3_000);
    const before = Date.now();
    run.recordQueryWithoutAnswer('review:r1', 1_000);
    const { notBefore } = run.queryPacing('review:r1');
    expect(notBefore).toBeGreaterThanOrEqual(before + 3_000);
    run.recordQueryWithoutAnswer('video:v1', 500);
    expect(run.queryPacing('video:v1').notBefore).toBeGreaterThanOrEqual(before + 500);
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
    run.planReviewTask(0, { assetType: 'Image', urls: ['https://cdn.example.com/a.jpg'] });
    run.setReviewTask(0, 'r1', 'pending');
    run.observeReview(0, {
      taskId: 'r1',
      status: 'processing',
      doneCount: 0,
      totalCount: 1,
      items: [],
      raw: {},
      queries: 2,
      nextQueryAt: 0,
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

describe('RunState: callbacks that arrive together', () => {
  // A workflow task that ran a confirming query and then failed (a signal came in while it closed the run)
  // is run again with the first callback and the new one in one activation, maybe on another worker.
  it('spaces the next query of the tasks they name by a full minimum interval from now', () => {
    const now = vi.spyOn(Date, 'now').mockReturnValue(1_000_000);
    try {
      const { run } = newRun();
      const interval = job().timing.reviewMinQueryIntervalMs;
      run.onReviewCallback({ taskId: 'r1', status: 'completed' });
      // One callback in an activation: a first workflow task, no earlier query to space from.
      expect(run.queryPacing('review:r1').notBefore).toBeUndefined();
      run.onReviewCallback({ taskId: 'r1', status: 'completed' });
      expect(run.queryPacing('review:r1').notBefore).toBe(1_000_000 + interval);
      // The next activation starts a new count.
      now.mockReturnValue(1_000_050);
      run.onReviewCallback({ taskId: 'r2', status: 'completed' });
      expect(run.queryPacing('review:r2').notBefore).toBeUndefined();
      run.onReviewCallback({ taskId: 'r3', status: 'completed' });
      expect(run.queryPacing('review:r2').notBefore).toBe(1_000_050 + interval);
      expect(run.queryPacing('review:r3').notBefore).toBe(1_000_050 + interval);
      // A later record is never shortened.
      expect(run.queryPacing('review:r1').notBefore).toBe(1_000_000 + interval);
    } finally {
      now.mockRestore();
    }
  });

  it('takes the word of a burst that reports a task cancelled: the lost query may have seen it (no query after cancelled)', () => {
    const now = vi.spyOn(Date, 'now').mockReturnValue(2_000_000);
    try {
      const { run } = newRun();
      run.onReviewCallback({ taskId: 'c1', status: 'cancelled' });
      expect(run.burst.reportedCancelled('review:c1')).toBe(false);
      expect(run.burst.calledBackCancelled('review:c1')).toBe(true);
      run.onReviewCallback({ taskId: 'c1', status: 'cancelled' });
      expect(run.burst.reportedCancelled('review:c1')).toBe(true);
      now.mockReturnValue(2_000_100);
      run.onReviewCallback({ taskId: 'c2', status: 'completed' });
      run.onReviewCallback({ taskId: 'c2', status: 'completed' });
      expect(run.burst.reportedCancelled('review:c2')).toBe(false);
      expect(run.burst.calledBackCancelled('review:c2')).toBe(false);
    } finally {
      now.mockRestore();
    }
  });
});
