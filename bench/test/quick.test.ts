// The benchmark's own measuring parts, cheaply: the plain-script peer against the real sandbox (it must
// do the same flow, with the same call counts, as the package), the figures read from the sandbox's logs,
// the activity counter, and the history race detector.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from 'temporal-review-video-sandbox';
import { startServices, type Services } from '../../test/support/services-stack.js';
import { reviewCallbackRacedSubmit } from '../lib/histories.js';
import { apiCalls, callbackLatency } from '../lib/sandbox-metrics.js';
import { percentile, summarize } from '../lib/stats.js';
import { runPeerJob, startPeerReceiver, type PeerReceiver } from '../peer/flow.js';
import { planJobs, PROFILES } from '../profiles.js';
import { countRunning, newGauge } from '../worker/counting.js';

describe('the plain-script peer against the sandbox', () => {
  let services: Services;
  let sandbox: Sandbox;
  let receiver: PeerReceiver;
  let clients: Services['clients'];
  beforeAll(async () => {
    // The sandbox and our clients as every stack has them (test/support/services-stack.ts); the peer's
    // own receiver listens on loopback, which they allow.
    services = await startServices({ sandbox: { reviewDurationMs: 150, videoDurationMs: 300 }, timeoutMs: 5_000 });
    ({ sandbox, clients } = services);
    receiver = await startPeerReceiver();
  });
  afterAll(async () => {
    await receiver.close();
    await services.close();
  });

  it('with callbacks: 4 calls per job (submit, confirm, create, confirm), and the callback latencies are read from the logs', async () => {
    sandbox.reset();
    const jobs = planJobs('t-cb', 3, PROFILES.zero);
    // A fallback poll later than the test may run: every query below was made for a callback. How soon it
    // follows the callback is the benchmark's figure (callback -> confirming query, `npm run bench`).
    const fallbackMs = 600_000;
    const timing = { reviewIntervalMs: 100, videoIntervalMs: 100, fallbackMs };
    const results = await Promise.all(jobs.map((j, i) => runPeerJob(i, j, 'callbacks', timing, clients, receiver)));
    expect(results.every((r) => r.ok)).toBe(true);
    const calls = apiCalls(sandbox.requests(), 3);
    expect(calls.perJob).toBe(4);
    expect(calls.byOperation).toEqual({
      'review.submitAsync': 3,
      'review.query': 3,
      'video.create': 3,
      'video.get': 3,
    });
    expect(calls.perReviewTask.max).toBe(2);
    const lat = callbackLatency(sandbox.requests(), sandbox.callbacks(), fallbackMs);
    // Per job one final review callback and one final video callback, each followed by its confirming query.
    expect(lat.callbacks.final).toBe(6);
    expect(lat.callbacks.unmatched).toBe(0);
    expect(lat.toConfirmMs.count).toBe(6);
    expect(lat.reviewToCreateMs.count).toBe(3);
    expect(lat.callbacks.answeredByFallbackPoll).toBe(0);
    // In the sandbox's log, each task's one query comes after that task's final callback.
    const finalCallbackAt = new Map(
      sandbox
        .callbacks()
        .filter((c) => ['completed', 'succeeded'].includes(c.status))
        .map((c) => [c.taskId, c.at]),
    );
    const queries = sandbox.requests().filter((r) => r.operation === 'review.query' || r.operation === 'video.get');
    expect(queries).toHaveLength(6);
    for (const q of queries) expect(q.at).toBeGreaterThanOrEqual(finalCallbackAt.get(q.taskId!)!);
  });

  it('with polling: no callback URL is sent, the same jobs succeed, and polls are counted per task', async () => {
    sandbox.reset();
    const jobs = planJobs('t-poll', 2, PROFILES.zero);
    const timing = { reviewIntervalMs: 50, videoIntervalMs: 50, fallbackMs: 10_000 };
    const results = await Promise.all(jobs.map((j, i) => runPeerJob(i, j, 'polling', timing, clients, receiver)));
    expect(results.every((r) => r.ok)).toBe(true);
    expect(sandbox.callbacks()).toHaveLength(0);
    const calls = apiCalls(sandbox.requests(), 2);
    expect(calls.byOperation['video.create']).toBe(2);
    expect(calls.perJob).toBeGreaterThan(4);
  });
});

describe('figures', () => {
  it('nearest-rank percentiles', () => {
    const xs = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentile(xs, 50)).toBe(50);
    expect(percentile(xs, 99)).toBe(99);
    expect(summarize([3, 1, 2])).toMatchObject({ count: 3, min: 1, p50: 2, max: 3, mean: 2 });
  });

  it('counts activities while they execute and returns to zero', async () => {
    const gauge = newGauge();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const acts = countRunning({ slow: async () => gate, fast: async (n: number) => n * 2 }, gauge);
    const slow = [acts.slow(), acts.slow()];
    expect(await acts.fast(2)).toBe(4);
    expect(gauge.running).toBe(2);
    release();
    await Promise.all(slow);
    expect(gauge).toMatchObject({ running: 0, peak: 3, started: 3 });
  });

  it('detects a review callback delivered no later than the submit result', () => {
    const scheduled = {
      eventId: '5',
      activityTaskScheduledEventAttributes: { activityType: { name: 'rtgSubmitReview' } },
    };
    const completed = { eventId: '7', activityTaskCompletedEventAttributes: { scheduledEventId: '5' } };
    const signal = { eventId: '8', workflowExecutionSignaledEventAttributes: { signalName: 'reviewCallback' } };
    const wftStarted = { eventId: '9', workflowTaskStartedEventAttributes: {} };
    expect(reviewCallbackRacedSubmit([scheduled, completed, signal])).toBe(true); // same workflow task
    expect(reviewCallbackRacedSubmit([scheduled, signal, completed])).toBe(true); // before
    expect(reviewCallbackRacedSubmit([scheduled, completed, wftStarted, signal])).toBe(false); // after: known id
  });
});
