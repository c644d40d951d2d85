// 2,000 jobs from a JSON Lines file against the sandbox, on the real dev server: every outcome accounted
// for (succeeded, failed, invalid), exactly one video task per succeeded job, and a history that stays
// bounded because the batch continues as new every 500 jobs. Prints the per-run history figures.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReviewThenGenerateBatch } from '../../src/client/index.js';
import { countOps, imageJob, startStack, workflowBundle, type Stack } from '../support/stack.js';
import { replayHistories, testClient } from '../support/temporal.js';

const JOBS = 2_000;
const INVALID_LINES = [17, 999, 1_850]; // 1-based
const REJECTED_JOBS = [3, 700, 1_401, 1_998, 1_999]; // 0-based job indexes whose image the review rejects

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ sandbox: { reviewDurationMs: 50, videoDurationMs: 100 }, httpTimeoutMs: 10_000 });
});
afterAll(async () => stack.stop());

describe('a batch of 2,000 jobs', () => {
  it('finishes with every outcome accounted for and a bounded history', { timeout: 1_800_000 }, async () => {
    const client = await testClient();
    const tag = randomUUID().slice(0, 8);
    const url = (i: number) => `https://cdn.example.com/large/${tag}/${i}.jpg`;
    for (const i of REJECTED_JOBS)
      stack.sandbox.setReviewVerdict(url(i), {
        passed: false,
        errorCode: 'E_POLICY',
        errorMessage: 'rejected by policy',
      });
    const lines = Array.from({ length: JOBS }, (_, i) =>
      INVALID_LINES.includes(i + 1)
        ? JSON.stringify({ task: { model: 'm', content: 'x' } })
        : JSON.stringify(imageJob(url(i))),
    );
    const path = join(mkdtempSync(join(tmpdir(), 'large-batch-')), 'jobs.jsonl');
    writeFileSync(path, `${lines.join('\n')}\n`);

    const started = Date.now();
    const batch = await startReviewThenGenerateBatch(client, {
      batchId: `large-${tag}`,
      batch: { jobsFile: path, concurrency: 50, continueAsNewEvery: 500 },
      taskQueue: stack.taskQueue,
    });
    let last = '';
    const ticker = setInterval(() => {
      batch
        .progress()
        .then((p) => {
          const line = `run ${p.run}: ${p.done}/${p.total ?? '?'} done, ${p.running} running, ${p.failed} not succeeded`;
          if (line !== last) console.log(`[large batch ${Math.round((Date.now() - started) / 1000)} s] ${line}`);
          last = line;
        })
        .catch(() => undefined);
    }, 10_000);
    const summary = await batch.result().finally(() => clearInterval(ticker));
    const seconds = (Date.now() - started) / 1000;
    const payloadBytes = Buffer.byteLength(JSON.stringify(summary));

    console.log(
      `2,000-job batch finished in ${seconds.toFixed(0)} s: ${JSON.stringify(summary.counts)}; summary payload ${payloadBytes} bytes`,
    );
    for (const r of summary.runs)
      console.log(`  run ${r.run}: ${r.jobs} jobs, history ${r.historyLength} events, ${r.historySizeBytes} bytes`);

    expect(summary.total).toBe(JOBS);
    expect(summary.counts).toEqual({
      succeeded: JOBS - INVALID_LINES.length - REJECTED_JOBS.length,
      failed: REJECTED_JOBS.length,
      cancelled: 0,
      duplicate: 0,
      invalid: INVALID_LINES.length,
    });
    expect(summary.outcomes.map((o) => o.index)).toEqual(Array.from({ length: JOBS }, (_, i) => i));
    expect(summary.omittedOutcomes).toBe(0);
    expect(summary.outcomes.filter((o) => o.status === 'invalid').map((o) => o.line)).toEqual(INVALID_LINES);
    expect(summary.outcomes.filter((o) => o.status === 'failed').map((o) => o.index)).toEqual(REJECTED_JOBS);
    expect(summary.outcomes.filter((o) => o.status === 'succeeded').every((o) => o.taskId && o.videoUrl)).toBe(true);
    expect(new Set(summary.outcomes.map((o) => o.taskId).filter(Boolean)).size).toBe(summary.counts.succeeded);

    // Nothing done twice: one video task per succeeded job, one review submit per started job.
    const ops = countOps(stack.sandbox);
    expect(ops['video.create']).toBe(summary.counts.succeeded);
    expect(ops['review.submitAsync']).toBe(JOBS - INVALID_LINES.length);
    expect((await client.workflow.count(`BatchId="large-${tag}"`)).count).toBe(JOBS - INVALID_LINES.length);

    // Bounded history: 4 runs of 500 jobs, each far below Temporal's 10,240-event warning, whatever the total.
    expect(summary.runs.map((r) => r.jobs)).toEqual([500, 500, 500, 500]);
    for (const r of summary.runs) {
      expect(r.historyLength).toBeLessThan(5_000);
      expect(r.historySizeBytes).toBeLessThan(4 * 1024 * 1024);
    }
    const final = await client.workflow.getHandle(`large-${tag}`).describe();
    console.log(`  last run as stored: ${final.historyLength} events, ${final.historySize} bytes`);
    expect(final.historyLength).toBeLessThan(5_000);
    expect(payloadBytes).toBeLessThan(2 * 1024 * 1024);
    expect(await replayHistories([{ workflowId: `large-${tag}` }], workflowBundle())).toBe(1);
  });
});
