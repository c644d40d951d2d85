// The gateway activities in an activity context (MockActivityEnvironment) against the sandbox over HTTP:
// the attempt / heartbeat rules of create, the polling contract of query, the error translation, and
// keeping a result that has no URL.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ApplicationFailureCategory } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { activityFailure } from '../support/failures.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createGatewayActivities } from '../../src/activities/gateway.js';
import { startSandbox, type Sandbox } from 'temporal-review-video-sandbox';
import { VideoClient } from '../../src/services/video/client.js';
import { FileVideoStore } from '../../src/store/file-store.js';

let sb: Sandbox;
let video: VideoClient;
let acts: ReturnType<typeof createGatewayActivities>;

const cfg = (gateway?: { vendorBQueryPath?: string | false }) => ({
  baseUrl: sb.videoBaseUrl,
  apiKey: sb.apiKey,
  cancelMethod: 'POST' as const,
  cancelPath: '/v1/task/cancel/{id}',
  timeoutMs: 2_000,
  ...(gateway ? { gateway } : {}),
});

beforeAll(async () => {
  sb = await startSandbox({ videoDurationMs: 400 });
  video = new VideoClient(cfg());
  acts = createGatewayActivities({ video });
});
afterAll(async () => {
  await video?.close();
  await sb?.close();
});
beforeEach(() => sb.reset());

/** Runs an activity in a mock activity context, typed by the activity. */
function run<I, O>(env: MockActivityEnvironment, fn: (input: I) => Promise<O>, input: I): Promise<O> {
  return env.run(fn, input) as Promise<O>;
}

describe('rtgCreateGatewayTask', () => {
  it('records the task id in the heartbeat details; a retried attempt returns it without sending', async () => {
    const env = new MockActivityEnvironment();
    const beats: unknown[] = [];
    env.on('heartbeat', (d: unknown) => beats.push(d));
    const created = await run(env, acts.rtgCreateGatewayTask, { entryPoint: 'vendorA', body: { prompt: 'p' } });
    expect(created).toMatchObject({ taskId: expect.any(String), state: 'submitted', reading: 'pending' });
    expect(beats).toEqual([
      expect.objectContaining({ taskId: created.taskId, record: expect.objectContaining({ state: 'submitted' }) }),
    ]);

    const retry = new MockActivityEnvironment({ attempt: 2, heartbeatDetails: beats[0] });
    expect(await run(retry, acts.rtgCreateGatewayTask, { entryPoint: 'vendorA', body: { prompt: 'p' } })).toMatchObject(
      { taskId: created.taskId, reading: 'pending' },
    );
    expect(sb.requests()).toHaveLength(1);
  });

  it('a retried attempt whose predecessor left no answer is CreateAmbiguous, not a second create', async () => {
    const env = new MockActivityEnvironment({ attempt: 2 });
    const f = await activityFailure(
      run(env, acts.rtgCreateGatewayTask, { entryPoint: 'videos', body: { prompt: 'p' } }),
    );
    expect(f.type).toBe('CreateAmbiguous');
    expect(f.nonRetryable).toBe(true);
    expect(sb.requests()).toHaveLength(0);
  });

  it('a 503 marks "not created" so the retry may send again; a 2xx without a readable id is ambiguous', async () => {
    sb.addFault({ operation: 'other', fault: { type: 'status', status: 503, retryAfter: '1' } });
    const env = new MockActivityEnvironment();
    const beats: unknown[] = [];
    env.on('heartbeat', (d: unknown) => beats.push(d));
    const f = await activityFailure(
      run(env, acts.rtgCreateGatewayTask, { entryPoint: 'videos', body: { prompt: 'p' } }),
    );
    expect(f).toMatchObject({ type: 'TransientServiceError', nonRetryable: false, nextRetryDelay: 1_000 });
    expect(beats).toEqual([{ notCreatedBy: 1 }]);
    const retry = new MockActivityEnvironment({ attempt: 2, heartbeatDetails: beats[0] });
    expect(
      (await run(retry, acts.rtgCreateGatewayTask, { entryPoint: 'videos', body: { prompt: 'p' } })).taskId,
    ).toMatch(/^video_/);

    sb.addFault({ operation: 'other', fault: { type: 'status', status: 200, body: { accepted: true }, commit: true } });
    const noId = await activityFailure(
      run(new MockActivityEnvironment(), acts.rtgCreateGatewayTask, { entryPoint: 'videos', body: { prompt: 'p' } }),
    );
    expect(noId.type).toBe('CreateAmbiguous');
    expect(noId.message).toContain('no task id');
    expect(noId.details?.[0]).toMatchObject({ body: { accepted: true } });
  });

  it('refuses before sending when the task could not be polled (vendor B create-only, unknown query kind)', async () => {
    const createOnly = new VideoClient(cfg({ vendorBQueryPath: false }));
    try {
      const a = createGatewayActivities({ video: createOnly });
      const f = await activityFailure(
        run(new MockActivityEnvironment(), a.rtgCreateGatewayTask, { entryPoint: 'vendorB', body: { prompt: 'p' } }),
      );
      expect(f).toMatchObject({ type: 'InvalidInput', nonRetryable: true });
      expect(f.message).toContain('create only');
    } finally {
      await createOnly.close();
    }
    const kind = await activityFailure(
      run(new MockActivityEnvironment(), acts.rtgCreateGatewayTask, {
        entryPoint: 'vendorA',
        queryKind: 'sideways',
        body: { prompt: 'p' },
      }),
    );
    expect(kind.type).toBe('InvalidInput');
    expect(sb.requests()).toHaveLength(0);
  });
});

describe('rtgQueryGatewayTask', () => {
  it('polling: not final and unchanged is a benign retryable failure with the cadence as delay; a change is returned', async () => {
    sb.setVideoOutcome({ promptIncludes: 'slow' }, 'succeeded', 20_000);
    const { taskId } = await run(new MockActivityEnvironment(), acts.rtgCreateGatewayTask, {
      entryPoint: 'unifiedVideo',
      body: { prompt: 'slow' },
    });
    const base = { entryPoint: 'unifiedVideo' as const, taskId, minIntervalMs: 0, cadenceMs: 700, untilFinal: true };
    const f = await activityFailure(
      run(new MockActivityEnvironment(), acts.rtgQueryGatewayTask, { ...base, returnOnChangeFrom: 'queued' }),
    );
    expect(f).toMatchObject({
      type: 'NotFinalYet',
      nonRetryable: false,
      nextRetryDelay: 700,
      category: ApplicationFailureCategory.BENIGN,
    });

    const changed = await run(new MockActivityEnvironment({ attempt: 3 }), acts.rtgQueryGatewayTask, {
      ...base,
      returnOnChangeFrom: 'in_progress',
    });
    expect(changed).toMatchObject({ taskId, state: 'queued', reading: 'pending', final: false, queries: 3 });

    const single = await run(new MockActivityEnvironment(), acts.rtgQueryGatewayTask, { ...base, untilFinal: false });
    expect(single.final).toBe(false);
  });

  it('a Retry-After sets the next delay, never below the minimum interval; a 404 is final', async () => {
    const { taskId } = await run(new MockActivityEnvironment(), acts.rtgCreateGatewayTask, {
      entryPoint: 'aigcImages',
      body: { prompt: 'p' },
    });
    sb.addFault({ operation: 'other', match: { taskId }, fault: { type: 'status', status: 429, retryAfter: '1' } });
    const limited = await activityFailure(
      run(new MockActivityEnvironment(), acts.rtgQueryGatewayTask, {
        entryPoint: 'aigcImages',
        taskId,
        minIntervalMs: 1_500,
        untilFinal: true,
      }),
    );
    expect(limited).toMatchObject({ type: 'TransientServiceError', nextRetryDelay: 1_500 });

    const missing = await activityFailure(
      run(new MockActivityEnvironment(), acts.rtgQueryGatewayTask, {
        entryPoint: 'aigcImages',
        taskId: 'nope',
        minIntervalMs: 0,
        untilFinal: true,
      }),
    );
    expect(missing).toMatchObject({ type: 'GenerationFailed', nonRetryable: true });
  });
});

describe('rtgCallGateway', () => {
  it('returns the answer whole; translates 400, 401 and validation like the native activities', async () => {
    const ok = await run(new MockActivityEnvironment(), acts.rtgCallGateway, {
      endpoint: 'imagesGenerations',
      body: { prompt: 'a kite' },
    });
    expect(ok).toMatchObject({
      endpoint: 'imagesGenerations',
      status: 200,
      body: { data: [{ url: expect.any(String) }] },
    });

    const rejected = await activityFailure(
      run(new MockActivityEnvironment(), acts.rtgCallGateway, { endpoint: 'imagesGenerations', body: {} }),
    );
    expect(rejected).toMatchObject({ type: 'VideoRequestRejected', nonRetryable: true });
    expect(rejected.details?.[0]).toMatchObject({ status: 400, operation: 'video.gateway.imagesGenerations' });

    const wrongKey = new VideoClient({ ...cfg(), apiKey: 'sk-wrong' });
    try {
      const unauthorized = await activityFailure(
        run(new MockActivityEnvironment(), createGatewayActivities({ video: wrongKey }).rtgCallGateway, {
          endpoint: 'responses',
          body: { model: 'm' },
        }),
      );
      expect(unauthorized.type).toBe('Unauthorized');
    } finally {
      await wrongKey.close();
    }

    const before = sb.requests().length;
    const invalid = await activityFailure(
      run(new MockActivityEnvironment(), acts.rtgCallGateway, { endpoint: 'nowhere' as never, body: {} }),
    );
    expect(invalid.type).toBe('InvalidInput');
    expect(sb.requests().length).toBe(before);
  });
});

// Issue 37, client defect 1: a completed /v1/videos object names no URL; its file is served to the key at
// GET /v1/videos/{id}/content. GenerateAndPoll used to succeed with `url: undefined`.
describe('rtgKeepGatewayVideo', () => {
  async function completedVideo(): Promise<string> {
    const id = ((await video.createVideo({ model: 'sora-2', prompt: 'a kite' })).body as { id: string }).id;
    for (;;) {
      const task = (await video.getVideo(id)).body as { status: string; url?: unknown };
      if (task.status === 'completed') {
        expect(task.url).toBeUndefined(); // the OpenAI video object has no URL field
        return id;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  it('downloads GET /v1/videos/{id}/content with the key into the store, once per run and task', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'keep-video-'));
    try {
      const keeping = createGatewayActivities({ video, store: new FileVideoStore(dir) });
      const id = await completedVideo();
      const input = { workflowId: 'wf-keep', entryPoint: 'videos' as const, taskId: id };
      const stored = await run(new MockActivityEnvironment(), keeping.rtgKeepGatewayVideo, input);
      expect(stored).toMatchObject({ url: expect.stringMatching(/^file:\/\//), contentType: 'video/mp4' });
      expect(await readFile(fileURLToPath(stored.url), 'utf8')).toBe(`sandbox video ${id}`);
      const downloads = sb.requests().filter((r) => r.path === `/v1/videos/${id}/content`);
      expect(downloads).toHaveLength(1);
      expect(downloads[0]!.headers.authorization).toBe(`Bearer ${sb.apiKey}`);

      // A retried attempt finds the complete copy: nothing is downloaded again.
      expect(await run(new MockActivityEnvironment({ attempt: 2 }), keeping.rtgKeepGatewayVideo, input)).toEqual(
        stored,
      );
      expect(sb.requests().filter((r) => r.path === `/v1/videos/${id}/content`)).toHaveLength(1);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('without a store: VideoStoreFailed naming the content path; nowhere to download: GenerationFailed', async () => {
    const id = await completedVideo();
    const noStore = await activityFailure(
      run(new MockActivityEnvironment(), acts.rtgKeepGatewayVideo, {
        workflowId: 'wf',
        entryPoint: 'videos' as const,
        taskId: id,
      }),
    );
    expect(noStore).toMatchObject({ type: 'VideoStoreFailed', nonRetryable: true });
    expect(noStore.message).toContain('/v1/videos/{id}/content');

    const noDownload = await activityFailure(
      run(new MockActivityEnvironment(), acts.rtgKeepGatewayVideo, {
        workflowId: 'wf',
        entryPoint: 'aigcImages' as const,
        taskId: 'img-1',
      }),
    );
    expect(noDownload).toMatchObject({ type: 'GenerationFailed', nonRetryable: true });
  });
});
