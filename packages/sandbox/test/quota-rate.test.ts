// The sandbox's quotas, continued: creates (submits) per minute in a sliding window, the Retry-After of a
// quota 429 (computed, fixed or none), quotas set at run time through the inspection API, the audit rule
// for a refused request sent again too early, and where the options come from (start, env).
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { AUDIT_RULES, auditRequestLog, startSandbox, type Sandbox, type SandboxOptions } from '../src/index.js';
import { parseModelLimits, parseQuotaRetryAfter } from '../src/quota-options.js';
import { Http, sleep } from './support/sandbox-http.js';
import { sandboxCalls } from './support/sandbox-calls.js';

const http = new Http();
let sb: Sandbox | undefined;
afterEach(async () => {
  await sb?.close();
  sb = undefined;
});
afterAll(() => http.close());

async function start(options: SandboxOptions): Promise<Sandbox> {
  sb = await startSandbox({ videoDurationMs: 60_000, reviewDurationMs: 60_000, ...options });
  return sb;
}

const { create, cancel, submit } = sandboxCalls(http);
const inspect = (s: Sandbox, method: 'GET' | 'POST', json?: unknown) =>
  http.call(method, `${s.reviewBaseUrl}/__sandbox/quotas`, {
    ...(json !== undefined ? { json, headers: { 'content-type': 'application/json' } } : {}),
  });

describe('creates per minute', () => {
  it('refuses a create beyond the window even with every task ended, with a Retry-After until it frees', async () => {
    const s = await start({ videoMaxCreatesPerMinute: 2 });
    const made = [await create(s), await create(s)];
    for (const m of made) await cancel(s, m.json.id);
    const refused = await create(s);
    expect(refused.status).toBe(429);
    expect(refused.json.error.code).toBe('rate_limit_exceeded');
    const seconds = Number(refused.headers['retry-after']);
    expect(seconds).toBeGreaterThanOrEqual(1);
    expect(seconds).toBeLessThanOrEqual(60);
    const entry = s.requests().at(-1)!;
    expect(entry.quota).toEqual({ limit: 'per-minute', scope: 'credential', model: 'model-a', max: 2 });
    expect(entry.retryAfter).toBe(String(seconds));
    expect(s.videoTasks()).toHaveLength(2);
    expect(s.quotaStats().video.refusedBy).toEqual({ tasksInFlight: 0, perMinute: 1 });
  });

  it('slides: the window frees once the oldest admitted create leaves it; refusals do not count', async () => {
    const s = await start({ videoMaxCreatesPerMinute: 1, quotaWindowMs: 300 });
    expect((await create(s)).status).toBe(200);
    expect((await create(s)).status).toBe(429);
    expect((await create(s)).status).toBe(429);
    await sleep(350);
    expect((await create(s)).status).toBe(200);
    expect((await create(s)).status).toBe(429);
    expect(s.quotaStats().video).toMatchObject({ admitted: 2, refused: 3 });
  });

  it('keeps per-model windows independent, and review submits apart', async () => {
    const s = await start({ videoMaxCreatesPerMinuteByModel: { 'model-a': 1 }, reviewMaxSubmitsPerMinute: 1 });
    expect([(await create(s, 'model-a')).status, (await create(s, 'model-a')).status]).toEqual([200, 429]);
    expect([(await create(s, 'model-b')).status, (await create(s, 'model-b')).status]).toEqual([200, 200]);
    expect(s.requests()[1]!.quota).toEqual({ limit: 'per-minute', scope: 'model', model: 'model-a', max: 1 });
    expect([(await submit(s)).status, (await submit(s)).status]).toEqual([202, 429]);
    expect(s.requests().at(-1)!.quota).toEqual({ limit: 'per-minute', scope: 'credential', max: 1 });
  });
});

describe('Retry-After of a quota 429', () => {
  it('computed for tasks in flight: until the first task in flight is due to end', async () => {
    const s = await start({ videoMaxTasksInFlight: 2 });
    s.setVideoOutcome({ promptIncludes: 'ten seconds' }, 'succeeded', 10_000);
    await create(s);
    await create(s, 'model-a', 'ten seconds');
    const seconds = Number((await create(s)).headers['retry-after']);
    expect(seconds).toBeGreaterThanOrEqual(1);
    expect(seconds).toBeLessThanOrEqual(10); // the 10 s task, not the 60 s one
  });

  it('fixed, or none at all, per service', async () => {
    const s = await start({
      videoMaxTasksInFlight: 0,
      videoQuotaRetryAfter: 7,
      reviewMaxTasksInFlight: 0,
      reviewQuotaRetryAfter: 'none',
    });
    const video = await create(s);
    const review = await submit(s);
    expect([video.status, video.headers['retry-after']]).toEqual([429, '7']);
    expect([review.status, review.headers['retry-after']]).toEqual([429, undefined]);
    const [v, r] = s.requests();
    expect([v!.retryAfter, v!.quota?.max]).toEqual(['7', 0]);
    expect(r!.retryAfter).toBeUndefined();
    expect(r!.quota).toEqual({ limit: 'tasks-in-flight', scope: 'credential', max: 0 });
    expect(s.videoTasks().length + s.reviewTasks().length).toBe(0);
  });
});

describe('quotas at run time', () => {
  it('are set, read and removed through the inspection API; reset restores the start ones', async () => {
    const s = await start({ reviewMaxTasksInFlight: 5 });
    expect((await create(s)).status).toBe(200);
    const set = await inspect(s, 'POST', { videoMaxTasksInFlight: 1, videoMaxTasksInFlightByModel: { 'model-b': 0 } });
    expect(set.status).toBe(200);
    expect(set.json.limits).toEqual({
      reviewMaxTasksInFlight: 5,
      videoMaxTasksInFlight: 1,
      videoMaxTasksInFlightByModel: { 'model-b': 0 },
    });
    expect((await create(s)).status).toBe(429);
    const read = await inspect(s, 'GET');
    expect(read.json.stats.video).toMatchObject({ inFlight: 1, peakInFlight: 1, admitted: 1, refused: 1 });
    expect(read.json.stats.video.byModel['model-a']).toMatchObject({ inFlight: 1 });

    expect((await inspect(s, 'POST', { videoMaxTasksInFlight: null })).json.limits).toEqual({
      reviewMaxTasksInFlight: 5,
      videoMaxTasksInFlightByModel: { 'model-b': 0 },
    });
    expect((await create(s)).status).toBe(200);
    expect((await create(s, 'model-b')).status).toBe(429);

    const bad = await inspect(s, 'POST', { videoMaxTasksInFlight: -1, videoMaxTaskInFlight: 2 });
    expect(bad.status).toBe(400);
    expect(bad.json.error.message).toContain('videoMaxTasksInFlight');
    expect(() => s.setQuotas({ reviewMaxSubmitsPerMinute: 1.5 })).toThrow(/reviewMaxSubmitsPerMinute/);

    s.reset();
    expect(s.quotas()).toEqual({ reviewMaxTasksInFlight: 5 });
    expect((await create(s, 'model-b')).status).toBe(200);
  });

  it('refuses a bad quota at start', async () => {
    await expect(startSandbox({ videoMaxTasksInFlight: -1 })).rejects.toThrow(/videoMaxTasksInFlight/);
    await expect(startSandbox({ videoQuotaRetryAfter: 'soon' as never })).rejects.toThrow(/videoQuotaRetryAfter/);
  });
});

describe('audit: a quota 429 retried before its Retry-After', () => {
  it('flags the same request sent again too early, not another request nor a retry that waited', async () => {
    const s = await start({ videoMaxTasksInFlight: 1, videoQuotaRetryAfter: 1 });
    const first = await create(s, 'model-a', 'first');
    expect((await create(s, 'model-a', 'second')).status).toBe(429);
    expect((await create(s, 'model-a', 'second')).status).toBe(429); // at once: too early
    expect((await create(s, 'model-a', 'third')).status).toBe(429); // another request: its own first try
    await sleep(1_050);
    await cancel(s, first.json.id);
    expect((await create(s, 'model-a', 'second')).status).toBe(200); // waited: fine
    const flagged = auditRequestLog(s.requests(), { minQueryIntervalMs: 0 }).filter(
      (v) => v.rule === AUDIT_RULES.quotaRetryAfter,
    );
    const creates = s.requests().filter((e) => e.operation === 'video.create');
    expect(flagged.map((v) => v.seq)).toEqual([creates[2]!.seq]);
    expect(flagged[0]!.detail).toContain(`quota 429 (seq ${creates[1]!.seq})`);
  });
});

describe('where the quota options come from', () => {
  it('env forms of the standalone sandbox', () => {
    expect(parseModelLimits('X', 'model-a:5, model-b:2')).toEqual({ 'model-a': 5, 'model-b': 2 });
    expect(parseModelLimits('X', 'ep-2025:v1:3')).toEqual({ 'ep-2025:v1': 3 });
    expect(() => parseModelLimits('X', 'model-a')).toThrow(/X must read model:limit/);
    expect(() => parseModelLimits('X', 'model-a:-1')).toThrow(/X/);
    expect(parseQuotaRetryAfter('Y', 'none')).toBe('none');
    expect(parseQuotaRetryAfter('Y', '12')).toBe(12);
    expect(() => parseQuotaRetryAfter('Y', 'later')).toThrow(/Y must be computed, none/);
  });
});
