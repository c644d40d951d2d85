// The sandbox's own quotas, over HTTP: tasks in flight per credential (and per video model), a create or
// submit beyond one is a 429 that makes nothing, a task that ends frees its slot, and the stats report
// the peak. Tasks last a minute unless a test ends them (cancel, or a short scripted outcome), so which
// create is refused depends on counts, never on timing.
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox, type SandboxOptions } from '../src/index.js';
import { Http, videoHeaders, waitFor } from './support/sandbox-http.js';
import { sandboxCalls } from './support/sandbox-calls.js';

const http = new Http();
let sb: Sandbox | undefined;
afterEach(async () => {
  await sb?.close();
  sb = undefined;
});
afterAll(() => http.close());

async function start(options: SandboxOptions): Promise<Sandbox> {
  sb = await startSandbox({ videoDurationMs: 60_000, reviewDurationMs: 60_000, syncReviewWaitMs: 20, ...options });
  return sb;
}

const { create, cancel, submit } = sandboxCalls(http);
const videoStatus = async (s: Sandbox, id: string): Promise<string> =>
  (await http.call('GET', `${s.videoBaseUrl}/v1/task/get/${id}`, { headers: videoHeaders(s) })).json.status as string;

describe('video tasks in flight', () => {
  it('refuses the N+1th create with 429, making nothing, and logs the refusal', async () => {
    const s = await start({ videoMaxTasksInFlight: 2 });
    const answers = [await create(s), await create(s), await create(s)];
    expect(answers.map((a) => a.status)).toEqual([200, 200, 429]);
    expect(answers[2]!.json.error.code).toBe('too_many_tasks_in_flight');
    expect(s.videoTasks()).toHaveLength(2);
    const refused = s.requests()[2]!;
    expect(refused).toMatchObject({ operation: 'video.create', status: 429 });
    expect(refused.quota).toEqual({ limit: 'tasks-in-flight', scope: 'credential', model: 'model-a', max: 2 });
    expect(refused.taskId).toBeUndefined();
    expect(refused.fault).toBeUndefined();
    expect(s.requests()[0]!.quota).toBeUndefined();
  });

  it('frees the slot of a task that is cancelled, succeeds or fails', async () => {
    const s = await start({ videoMaxTasksInFlight: 1 });
    s.setVideoOutcome({ promptIncludes: 'quick-ok' }, 'succeeded', 30);
    s.setVideoOutcome({ promptIncludes: 'quick-fail' }, 'failed', 30);
    const first = await create(s);
    expect((await create(s)).status).toBe(429);
    expect((await cancel(s, first.json.id)).json.status).toBe('cancelled');

    const ok = await create(s, 'model-a', 'quick-ok');
    expect(ok.status).toBe(200);
    await waitFor(async () => (await videoStatus(s, ok.json.id)) === 'succeeded', 5_000, 'the task to succeed');
    const failing = await create(s, 'model-a', 'quick-fail');
    expect(failing.status).toBe(200);
    await waitFor(async () => (await videoStatus(s, failing.json.id)) === 'failed', 5_000, 'the task to fail');
    expect((await create(s)).status).toBe(200);
    const creates = s.requests().filter((e) => e.operation === 'video.create');
    expect(creates.map((e) => e.status)).toEqual([200, 429, 200, 200, 200]);
  });

  it('keeps per-model limits independent, and the credential limit over all models', async () => {
    const s = await start({ videoMaxTasksInFlightByModel: { 'model-a': 2, 'model-b': 1 } });
    const statuses = async (model: string, n: number) => {
      const out: number[] = [];
      for (let i = 0; i < n; i++) out.push((await create(s, model)).status);
      return out;
    };
    expect(await statuses('model-a', 3)).toEqual([200, 200, 429]);
    expect(await statuses('model-b', 2)).toEqual([200, 429]);
    expect(await statuses('model-c', 3)).toEqual([200, 200, 200]); // no limit of its own
    expect(
      s
        .requests()
        .filter((e) => e.status === 429)
        .map((e) => e.quota),
    ).toEqual([
      { limit: 'tasks-in-flight', scope: 'model', model: 'model-a', max: 2 },
      { limit: 'tasks-in-flight', scope: 'model', model: 'model-b', max: 1 },
    ]);

    // 6 in flight now (2 + 1 + 3): a credential limit of 7 leaves one slot, whatever the model.
    s.setQuotas({ videoMaxTasksInFlight: 7 });
    expect(await statuses('model-c', 2)).toEqual([200, 429]);
    expect(s.requests().at(-1)!.quota).toEqual({
      limit: 'tasks-in-flight',
      scope: 'credential',
      model: 'model-c',
      max: 7,
    });
  });

  it('counts the other entry points in the same quota, per model', async () => {
    const s = await start({ videoMaxTasksInFlight: 1 });
    const gateway = () =>
      http.call('POST', `${s.videoBaseUrl}/v1/video/generations`, {
        headers: videoHeaders(s),
        json: { model: 'model-a', prompt: 'a walk' },
      });
    const native = await create(s);
    const refused = await gateway();
    expect(refused.status).toBe(429);
    expect(s.requests()[1]).toMatchObject({ gateway: 'create', quota: { limit: 'tasks-in-flight' } });
    await cancel(s, native.json.id);
    s.setVideoOutcome({ model: 'model-a' }, 'succeeded', 30);
    const made = await gateway();
    expect(made.status).toBe(200);
    expect((await create(s)).status).toBe(429);
    await waitFor(() => s.quotaStats().video.inFlight === 0, 5_000, 'the gateway task to end');
    expect((await create(s)).status).toBe(200);
    expect(s.quotaStats().video).toMatchObject({ admitted: 3, refused: 2, peakInFlight: 1 });
  });

  it('never has more in flight than the limit under a burst; the stats report the peak', async () => {
    const s = await start({ videoMaxTasksInFlight: 3, videoMaxTasksInFlightByModel: { 'model-b': 1 } });
    const burst = await Promise.all(
      Array.from({ length: 10 }, (_, i) => create(s, i % 2 === 0 ? 'model-a' : 'model-b')),
    );
    expect(burst.filter((a) => a.status === 200)).toHaveLength(3);
    expect(burst.filter((a) => a.status === 429)).toHaveLength(7);
    expect(s.videoTasks()).toHaveLength(3);
    const stats = s.quotaStats();
    expect(stats.video).toMatchObject({ inFlight: 3, peakInFlight: 3, admitted: 3, refused: 7 });
    expect(stats.video.refusedBy.tasksInFlight).toBe(7);
    expect(stats.video.byModel['model-b']).toMatchObject({ inFlight: 1, peakInFlight: 1, admitted: 1 });
    expect(stats.video.byModel['model-a']!.peakInFlight).toBe(2);
    expect(stats.review).toMatchObject({ inFlight: 0, peakInFlight: 0, admitted: 0, refused: 0 });

    for (const t of s.videoTasks()) await cancel(s, t.id);
    expect(s.quotaStats().video).toMatchObject({ inFlight: 0, peakInFlight: 3 });
    s.reset();
    expect(s.quotaStats().video).toMatchObject({ inFlight: 0, peakInFlight: 0, admitted: 0, refused: 0 });
  });

  it('counts tasks in flight (and their peak) with no quota set', async () => {
    const s = await start({});
    for (let i = 0; i < 4; i++) expect((await create(s)).status).toBe(200);
    expect(s.quotaStats().video).toMatchObject({ inFlight: 4, peakInFlight: 4, refused: 0 });
  });
});

describe('review tasks in flight', () => {
  it('refuses an async or sync submit beyond the limit; a task that ends frees its slot', async () => {
    const s = await start({ reviewMaxTasksInFlight: 2 });
    s.setReviewTaskOutcome({ url: 'https://cdn.example.com/quick.jpg' }, 'completed', 30);
    const first = await submit(s, 'async');
    // A sync submit answered before its review ended (syncReviewWaitMs) still holds its slot.
    const second = await submit(s, 'sync');
    expect([first.status, second.status, second.json.status]).toEqual([202, 200, 'pending']);
    const refusedAsync = await submit(s, 'async');
    const refusedSync = await submit(s, 'sync');
    expect([refusedAsync.status, refusedSync.status]).toEqual([429, 429]);
    expect(refusedAsync.json.error.code).toBe('too_many_tasks_in_flight');
    expect(s.reviewTasks()).toHaveLength(2);
    expect(
      s
        .requests()
        .filter((e) => e.quota)
        .map((e) => e.operation),
    ).toEqual(['review.submitAsync', 'review.submitSync']);
    expect(s.requests()[2]!.quota).toEqual({ limit: 'tasks-in-flight', scope: 'credential', max: 2 });

    s.cancelReviewTask(first.json.task_id);
    expect((await submit(s, 'async', 'https://cdn.example.com/quick.jpg')).status).toBe(202);
    await waitFor(() => s.quotaStats().review.inFlight === 1, 5_000, 'the quick review to end');
    expect(s.reviewTasks().find((t) => t.urls[0]!.includes('quick'))!.status).toBe('completed');
    expect((await submit(s, 'async')).status).toBe(202);
    expect((await submit(s, 'sync')).status).toBe(429);
    expect(s.quotaStats().review).toMatchObject({ inFlight: 2, peakInFlight: 2, admitted: 4, refused: 3 });
  });

  it('keeps the services independent: a video quota leaves review alone and the reverse', async () => {
    const s = await start({ videoMaxTasksInFlight: 1, reviewMaxTasksInFlight: 3 });
    expect([(await create(s)).status, (await create(s)).status]).toEqual([200, 429]);
    for (let i = 0; i < 3; i++) expect((await submit(s, 'async')).status).toBe(202);
    expect((await submit(s, 'async')).status).toBe(429);
    expect(s.quotaStats()).toMatchObject({
      video: { peakInFlight: 1, refused: 1 },
      review: { peakInFlight: 3, refused: 1 },
    });
  });
});
