// A Temporal Schedule on the real dev server fires ReviewThenGenerateBatch at an interval shorter than a
// batch lasts: it fires at least twice, the batches never overlap (SKIP), and the skipped firings are
// counted. The helpers list and delete it.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createBatchSchedule,
  deleteBatchSchedule,
  describeBatchSchedule,
  InvalidJobInputError,
  listBatchSchedules,
} from '../../src/client/index.js';
import { imageJob, startStack, type Stack } from '../support/stack.js';
import { testClient } from '../support/temporal.js';
import { waitFor } from '../support/visibility.js';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => stack.stop());

describe('batch schedules', () => {
  it('fires a batch twice without overlap, skipping firings while one runs', async () => {
    const client = await testClient();
    const tag = randomUUID().slice(0, 8);
    // Each batch lasts about 4 s; the schedule fires every 2 s.
    stack.sandbox.setVideoOutcome({ promptIncludes: `sched-${tag}` }, 'succeeded', 4_000);
    const jobs = [0, 1].map((i) => {
      const input = imageJob(`https://cdn.example.com/sched/${tag}/${i}.jpg`);
      input.task.content = [
        { type: 'text', text: `sched-${tag} clip ${i}` },
        ...(input.task.content as unknown[]).slice(1),
      ] as typeof input.task.content;
      return input;
    });
    const scheduleId = `sched-${tag}`;
    const handle = await createBatchSchedule(client, {
      scheduleId,
      every: '2s',
      batch: { jobs, concurrency: 2 },
      taskQueue: stack.taskQueue,
      note: 'test',
    });
    try {
      const listed = await waitFor(
        'schedule listed',
        () => listBatchSchedules(client),
        (all) => all.some((s) => s.scheduleId === scheduleId),
      );
      expect(listed.find((s) => s.scheduleId === scheduleId)).toMatchObject({ everyMs: [2_000], paused: false });

      await waitFor(
        'two batches started',
        () => describeBatchSchedule(client, scheduleId),
        (d) => d.recentBatches.length >= 2,
        90_000,
      );
      await handle.pause('test: two batches seen');
      const info = await describeBatchSchedule(client, scheduleId);
      const batchIds = info.recentBatches.map((b) => b.workflowId);
      const spans = await Promise.all(
        batchIds.map(async (id) => {
          const h = client.workflow.getHandle(id);
          const summary = (await h.result()) as { counts: { succeeded: number } };
          expect(summary.counts.succeeded).toBe(2);
          const d = await h.describe();
          return { id, start: d.startTime.getTime(), close: d.closeTime!.getTime() };
        }),
      );
      spans.sort((a, b) => a.start - b.start);
      console.log(
        `schedule ${scheduleId}: ${spans.map((s) => `${s.id} ${new Date(s.start).toISOString()} -> ${new Date(s.close).toISOString()}`).join('; ')}; skipped (overlap) ${info.skippedOverlap}`,
      );
      for (let i = 1; i < spans.length; i++) expect(spans[i]!.start).toBeGreaterThanOrEqual(spans[i - 1]!.close);
      expect(info.skippedOverlap).toBeGreaterThanOrEqual(1);
      expect(batchIds.every((id) => id.startsWith(`batch-${scheduleId}-`))).toBe(true);
    } finally {
      await deleteBatchSchedule(client, scheduleId);
    }
    await expect(describeBatchSchedule(client, scheduleId)).rejects.toThrow();
  });

  it('refuses a schedule without a cron or interval, or with a bad batch, before creating anything', async () => {
    const client = await testClient();
    const scheduleId = `sched-bad-${randomUUID().slice(0, 8)}`;
    const none = await createBatchSchedule(client, { scheduleId, batch: { jobs: [imageJob()] } }).catch(
      (e: unknown) => e,
    );
    expect(none).toBeInstanceOf(InvalidJobInputError);
    const bad = await createBatchSchedule(client, { scheduleId, every: 'soon', batch: { jobs: [{ task: {} }] } }).catch(
      (e: unknown) => e,
    );
    expect((bad as InvalidJobInputError).problems.map((p) => p.field).sort()).toEqual(['every', 'jobs[0]']);
    await expect(describeBatchSchedule(client, scheduleId)).rejects.toThrow();
  });
});
