import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createTrivialActivities } from './fixtures/trivial-activities.js';
import { replayHistories, startWorker, testClient } from './support/temporal.js';

const workflowsPath = fileURLToPath(new URL('./fixtures/trivial-workflow.ts', import.meta.url));

describe('foundation: a real Temporal dev server', () => {
  it('runs a workflow that calls an activity on a real worker, and its history replays', async () => {
    const client = await testClient();
    const w = await startWorker({ workflowsPath, activities: createTrivialActivities() });
    try {
      const handle = await client.workflow.start('trivialWorkflow', {
        taskQueue: w.taskQueue,
        workflowId: `trivial-${Date.now()}`,
        args: ['temporal'],
      });
      expect(await handle.result()).toBe('hello, temporal');
      const history = await handle.fetchHistory();
      const types = (history.events ?? []).map((e) => String(e.eventType));
      expect(types.some((t) => t.includes('ACTIVITY_TASK_COMPLETED') || t === '12')).toBe(true);
      expect(await replayHistories([handle], workflowsPath)).toBe(1);
    } finally {
      await w.stop();
    }
  });
});
