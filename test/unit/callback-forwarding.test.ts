// The receiver's rule for which callbacks become signals (src/callbacks/forwarding.ts), on descriptions
// shaped as the server returns them.
import { TypedSearchAttributes, type SearchAttributePair } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { forwardDecision } from '../../src/callbacks/forwarding.js';
import { ReviewTaskIds, VideoTaskId } from '../../src/contract/index.js';

function run(o: { status?: string; pending?: string[]; attributes?: SearchAttributePair[] } = {}) {
  return {
    status: { name: o.status ?? 'RUNNING' },
    typedSearchAttributes: new TypedSearchAttributes(o.attributes ?? []),
    raw: { pendingActivities: (o.pending ?? []).map((activityId) => ({ activityId })) },
  } as unknown as Parameters<typeof forwardDecision>[2];
}

describe('which callbacks the receiver signals', () => {
  it('forwards final states, callbacks without a task id, and tasks the run has not claimed', () => {
    expect(forwardDecision('video', { taskId: 't1', status: 'succeeded' }, run())).toBe('forward');
    expect(forwardDecision('video', { status: 'running' }, run())).toBe('forward');
    // An ambiguous create: the run has no VideoTaskId yet, so a `running` callback may be its task.
    expect(forwardDecision('video', { taskId: 't1', status: 'running' }, run())).toBe('forward');
    // An orphan: not the indexed task.
    const indexed = run({ attributes: [{ key: VideoTaskId, value: 't1' }] });
    expect(forwardDecision('video', { taskId: 't2', status: 'running' }, indexed)).toBe('forward');
    // An unknown status might be final.
    expect(forwardDecision('video', { taskId: 't1', status: 'weird' }, indexed)).toBe('forward');
  });

  it('drops a still-working callback of the task the run has indexed as its own', () => {
    const indexed = run({ attributes: [{ key: VideoTaskId, value: 't1' }] });
    expect(forwardDecision('video', { taskId: 't1', status: 'running' }, indexed)).toBe('still working');
    expect(forwardDecision('video', { taskId: 't1', status: 'queued' }, indexed)).toBe('still working');
    expect(forwardDecision('video', { taskId: 't1', status: 'succeeded' }, indexed)).toBe('forward');
    const reviewed = run({ attributes: [{ key: ReviewTaskIds, value: ['r1', 'r2'] }] });
    expect(forwardDecision('review', { taskId: 'r2', status: 'processing' }, reviewed)).toBe('still working');
    expect(forwardDecision('review', { taskId: 'r2', status: 'completed' }, reviewed)).toBe('forward');
  });

  it("a run that polls: its video task's callbacks are dropped, a review task's final state is forwarded", () => {
    // The activity id that the receiver of 0.2.0 read: it reads no activity id any more.
    const polling = run({
      pending: ['poll:video:t1'],
      attributes: [
        { key: VideoTaskId, value: 't1' },
        { key: ReviewTaskIds, value: ['r1'] },
      ],
    });
    expect(forwardDecision('video', { taskId: 't1', status: 'succeeded' }, polling, true)).toBe('polled');
    expect(forwardDecision('video', { taskId: 't2', status: 'succeeded' }, polling, true)).toBe('forward'); // an orphan
    // A lost poll answer may have seen `cancelled`: only this callback can tell the run without a query.
    expect(forwardDecision('review', { taskId: 'r1', status: 'cancelled' }, polling, true)).toBe('forward');
    expect(forwardDecision('review', { taskId: 'r1', status: 'processing' }, polling, true)).toBe('still working');
    // Without the signed flag the run waits for callbacks: every final state is forwarded.
    expect(forwardDecision('video', { taskId: 't1', status: 'succeeded' }, polling)).toBe('forward');
  });

  it('ignores closed runs', () => {
    expect(forwardDecision('video', { taskId: 't1', status: 'succeeded' }, run({ status: 'COMPLETED' }))).toBe(
      'closed',
    );
  });
});
