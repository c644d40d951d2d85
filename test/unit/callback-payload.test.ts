// What the receiver takes from a callback body (src/callbacks/payload.ts): a task id and a status, the
// status in the wire model's words, so the run recognises a final state however the service spells it.
import { describe, expect, it } from 'vitest';
import { callbackSignalFrom } from '../../src/callbacks/payload.js';

describe('callbackSignalFrom', () => {
  it('normalises known statuses: Canceled is cancelled, for review and video alike', () => {
    expect(callbackSignalFrom('review', { task_id: 'rv-1', status: 'Canceled' })).toEqual({
      taskId: 'rv-1',
      status: 'cancelled',
    });
    expect(callbackSignalFrom('review', { task_id: 'rv-1', status: 'COMPLETED' })).toEqual({
      taskId: 'rv-1',
      status: 'completed',
    });
    expect(callbackSignalFrom('video', { data: { id: 'cgt-1', status: 'CANCELED' } })).toEqual({
      taskId: 'cgt-1',
      status: 'cancelled',
    });
    expect(callbackSignalFrom('video', { id: 'cgt-1', task_status: 'Succeeded' })).toEqual({
      taskId: 'cgt-1',
      status: 'succeeded',
    });
  });

  it('keeps an unknown status as sent (lower-cased), and no status when there is none', () => {
    expect(callbackSignalFrom('review', { task_id: 'rv-1', status: 'Archived' })).toEqual({
      taskId: 'rv-1',
      status: 'archived',
    });
    expect(callbackSignalFrom('review', { task_id: 'rv-1' })).toEqual({ taskId: 'rv-1' });
    expect(callbackSignalFrom('video', { status: 'running' })).toEqual({ status: 'running' });
  });
});
