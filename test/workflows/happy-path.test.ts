// ReviewThenGenerate end to end on the real dev server, sandbox over HTTP: callbacks and polling,
// exact call counts, query spacing, Retry-After and the 1 s / 2 s / 4 s network backoff.
import { describe, expect, it } from 'vitest';
import { countOps, fastTiming, imageJob, withStack, type Stack } from '../support/stack.js';
import { progressQuery } from '../../src/job/definitions.js';

let stack: Stack;
withStack({}, (s) => (stack = s));

function gaps(times: number[]): number[] {
  return times.slice(1).map((t, i) => t - times[i]!);
}

describe('ReviewThenGenerate happy path', () => {
  it('with callbacks costs exactly 1 async submit, 1 review query, 1 create and 1 get', async () => {
    stack.sandbox.reset();
    const handle = await stack.start(imageJob());
    const result = await handle.result();

    expect(result.state).toBe('succeeded');
    expect(result.videoUrl).toMatch(/^https?:\/\/.+\.mp4$/);
    expect(result.assets).toHaveLength(1);
    expect(result.assets[0]!.assetUrl).toMatch(/^Asset:\/\//);
    expect(result.reviewTaskIds).toHaveLength(1);
    expect(countOps(stack.sandbox)).toEqual({
      'review.submitAsync': 1,
      'review.query': 1,
      'video.create': 1,
      'video.get': 1,
    });

    // The create used the approved Asset:// address, never the source URL nor downstream_final_url.
    const create = stack.sandbox.requests().find((r) => r.operation === 'video.create')!;
    const body = create.body as { content: Array<{ image_url?: { url: string } }>; callback_url?: string };
    expect(body.content[1]!.image_url!.url).toBe(result.assets[0]!.assetUrl);
    expect(JSON.stringify(body)).not.toContain('signed');
    expect(body.callback_url).toContain('/callbacks/video/');
    // Review happened before the create.
    const order = stack.sandbox.requests().map((r) => r.operation);
    expect(order.indexOf('video.create')).toBeGreaterThan(order.lastIndexOf('review.query'));
    const progress = await handle.query(progressQuery);
    expect(progress).toMatchObject({ stage: 'succeeded', taskId: result.taskId, state: 'succeeded' });
  });

  it('without callbacks polls, never closer than the minimum query interval; callbacks that come do not add queries', async () => {
    stack.sandbox.reset();
    const minInterval = 500;
    // A slow review so that several queries are needed.
    stack.sandbox.setReviewTaskOutcome({ url: 'https://cdn.example.com/slow/beach.png' }, 'completed', 2_500);
    const handle = await stack.start(
      imageJob('https://cdn.example.com/slow/beach.png', {
        callbacks: false,
        timing: { ...fastTiming, reviewMinQueryIntervalMs: minInterval },
      }),
    );
    const result = await handle.result();
    expect(result.state).toBe('succeeded');
    const queries = stack.sandbox.requests().filter((r) => r.operation === 'review.query');
    expect(queries.length).toBeGreaterThanOrEqual(3);
    for (const g of gaps(queries.map((q) => q.at))) expect(g).toBeGreaterThanOrEqual(minInterval - 1);
    // The worker has a receiver, so the address is still sent (it would confirm an ambiguous submit); the
    // job polls all the same, and the callbacks that arrive cause no query of their own.
    const submit = stack.sandbox.requests().find((r) => r.operation === 'review.submitAsync')!;
    expect(JSON.stringify(submit.body)).toContain('callback_url');
    expect(stack.sandbox.callbacks().length).toBeGreaterThan(0);
    const progress = await handle.query(progressQuery);
    expect(progress.queries.review).toBe(queries.length);
  });

  it('obeys a Retry-After on a review query, and never lets it shorten the minimum interval', async () => {
    stack.sandbox.reset();
    const minInterval = 1_500;
    const url = 'https://cdn.example.com/ra/one.jpg';
    stack.sandbox.setReviewTaskOutcome({ url }, 'completed', 6_000);
    stack.sandbox.addFault({
      operation: 'review.query',
      times: 1,
      fault: { type: 'status', status: 429, retryAfter: '3' },
    });
    stack.sandbox.addFault({
      operation: 'review.query',
      times: 1,
      fault: { type: 'status', status: 503, retryAfter: '1' },
    });
    const handle = await stack.start(
      imageJob(url, { callbacks: false, timing: { ...fastTiming, reviewMinQueryIntervalMs: minInterval } }),
    );
    await handle.result();
    const queries = stack.sandbox.requests().filter((r) => r.operation === 'review.query');
    expect(queries[0]!.status).toBe(429);
    expect(queries[1]!.status).toBe(503);
    expect(queries[1]!.at - queries[0]!.at).toBeGreaterThanOrEqual(3_000 - 1); // Retry-After: 3
    expect(queries[2]!.at - queries[1]!.at).toBeGreaterThanOrEqual(minInterval - 1); // Retry-After: 1 < minimum
    for (const g of gaps(queries.map((q) => q.at))) expect(g).toBeGreaterThanOrEqual(minInterval - 1);
  });

  it('backs off 1 s, 2 s, 4 s after query network failures', async () => {
    stack.sandbox.reset();
    const url = 'https://cdn.example.com/net/one.jpg';
    stack.sandbox.setReviewTaskOutcome({ url }, 'completed', 200);
    stack.sandbox.addFault({ operation: 'review.query', times: 3, fault: { type: 'reset' } });
    const handle = await stack.start(
      imageJob(url, { callbacks: false, timing: { ...fastTiming, reviewMinQueryIntervalMs: 300 } }),
    );
    await handle.result();
    const queries = stack.sandbox.requests().filter((r) => r.operation === 'review.query');
    // Three resets, then the query that gets through: one query per attempt, none added.
    expect(queries.map((q) => q.fault ?? q.status)).toEqual(['reset', 'reset', 'reset', 200]);
    const [g1, g2, g3] = gaps(queries.map((q) => q.at));
    console.log(`network-failure backoff observed: ${g1} ms, ${g2} ms, ${g3} ms`);
    // The rule, end to end: never sooner than each step. The steps themselves (the delays the query asks
    // for: 1, 2, 4, then 4 s) are asserted as values in test/activities/at-most-once.test.ts.
    expect(g1).toBeGreaterThanOrEqual(1_000 - 1);
    expect(g2).toBeGreaterThanOrEqual(2_000 - 1);
    expect(g3).toBeGreaterThanOrEqual(4_000 - 1);
  });

  it('review.mode "sync" reviews with one synchronous submit per batch and no review query', async () => {
    stack.sandbox.reset();
    const input = imageJob('https://cdn.example.com/sync/one.webp');
    input.review = { mode: 'sync' };
    const result = await (await stack.start(input)).result();
    expect(result.assets[0]!.assetUrl).toMatch(/^Asset:\/\//);
    expect(countOps(stack.sandbox)).toEqual({ 'review.submitSync': 1, 'video.create': 1, 'video.get': 1 });
  });

  it('reviews many URLs grouped by type in batches of at most 50, in parallel', async () => {
    stack.sandbox.reset();
    const images = Array.from({ length: 60 }, (_, i) => `https://cdn.example.com/many/img-${i}.jpg`);
    const input = imageJob(images[0]);
    input.task.content = [
      { type: 'text', text: 'a collage' },
      { type: 'image_url', image_url: { url: images[0] }, role: 'reference_image' },
      { type: 'video_url', video_url: { url: 'https://cdn.example.com/many/clip.mp4' }, role: 'reference_video' },
    ];
    input.review = { urls: [...images, 'https://cdn.example.com/many/clip.mp4'] };
    const result = await (await stack.start(input)).result();
    const submits = stack.sandbox.requests().filter((r) => r.operation === 'review.submitAsync');
    const sizes = submits.map((s) => (s.body as { images: string[] }).images.length).sort((a, b) => a - b);
    expect(sizes).toEqual([1, 10, 50]);
    const types = submits.map((s) => (s.body as { asset_type: string }).asset_type).sort();
    expect(types).toEqual(['Image', 'Image', 'Video']);
    expect(result.reviewTaskIds).toHaveLength(3);
    expect(result.assets).toHaveLength(61);
    const create = stack.sandbox.requests().find((r) => r.operation === 'video.create')!;
    const urls = (create.body as { content: Array<Record<string, { url?: string }>> }).content
      .map((c) => c.image_url?.url ?? c.video_url?.url)
      .filter(Boolean);
    for (const u of urls) expect(u).toMatch(/^Asset:\/\//);
  });
});
