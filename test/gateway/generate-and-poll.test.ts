// GenerateAndPoll on the real dev server against the sandbox, for every asynchronous entry point (and each
// of vendor A's three query paths): the task is created once (a 503 with Retry-After is retried after it; a
// 500 after commit is not resubmitted and leaves exactly one task), polled on its own query path with the
// bearer key, a Retry-After on a query is obeyed, and the success state of each vocabulary is recognised.
// Then: unknown states in `progress`, failed tasks, 400, opt-in resubmission, time-out, invalid input, and
// the synchronous activity's durability. Every history is replayed and searched for secrets.
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { ActivityFailure, ApplicationFailure } from '@temporalio/common';
import { bundleWorkflowCode, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActivities } from '../../src/activities/index.js';
import type { GatewayCallInput } from '../../src/contract/index.js';
import { startSandbox, type RequestLogEntry, type Sandbox } from 'temporal-review-video-sandbox';
import { ReviewClient } from '../../src/services/review/client.js';
import { VideoClient } from '../../src/services/video/client.js';
import { FileVideoStore } from '../../src/store/file-store.js';
import type { GatewayTaskEntryPoint } from '../../src/model/video/gateway-adapters.js';
import { GATEWAY_ENDPOINT_NAMES, GATEWAY_ENDPOINTS } from '../../src/model/video/gateway-endpoints.js';
import {
  generateAndPollProgressQuery,
  type GenerateAndPollResult,
} from '../../src/job/generate-and-poll-definitions.js';
import { MAX_AMBIGUOUS_SUBMITS } from '../../src/workflows/ambiguity.js';
import type { GenerateAndPollInput } from '../../src/job/generate-and-poll-input.js';
import { workflowPreloadModules } from '../../src/workflows-path.js';
import {
  assertNoSecretsInHistories,
  replayHistories,
  startWorker,
  testClient,
  type RunningWorker,
} from '../support/temporal.js';

let sb: Sandbox;
let video: VideoClient;
let review: ReviewClient;
let worker: RunningWorker;
let bundle: WorkflowBundleWithSourceMap;
let storeDir: string | undefined;
const handles: WorkflowHandle[] = [];

const timing = {
  pollIntervalMs: 300,
  minQueryIntervalMs: 300,
  generationTimeoutMs: 60_000,
  createAmbiguityGraceMs: 1_500,
  callTimeoutMs: 10_000,
};

beforeAll(async () => {
  const quiet = { log() {}, info() {}, warn() {}, error() {}, debug() {}, trace() {} };
  bundle = await bundleWorkflowCode({
    workflowsPath: fileURLToPath(new URL('./fixtures/workflows.ts', import.meta.url)),
    // The fixture re-exports the package's workflows, as a user's module would: they are still preloaded.
    preloadModules: workflowPreloadModules,
    logger: quiet,
  });
  sb = await startSandbox({ videoDurationMs: 800 });
  video = new VideoClient({
    baseUrl: sb.videoBaseUrl,
    apiKey: sb.apiKey,
    cancelMethod: 'POST',
    cancelPath: '/v1/task/cancel/{id}',
    timeoutMs: 2_000,
  });
  review = new ReviewClient({ baseUrl: sb.reviewBaseUrl, accessToken: sb.accessToken, timeoutMs: 2_000 });
  storeDir = await mkdtemp(join(tmpdir(), 'gap-store-'));
  worker = await startWorker({
    workflowBundle: bundle,
    activities: createActivities({ video, review, store: new FileVideoStore(storeDir) }),
  });
});

afterAll(async () => {
  try {
    expect(await replayHistories(handles, bundle)).toBe(handles.length);
    expect(await assertNoSecretsInHistories(handles, [sb.apiKey, sb.accessToken])).toBe(handles.length);
  } finally {
    await worker?.stop();
    await Promise.allSettled([video?.close(), review?.close()]);
    await sb?.close();
    if (storeDir) await rm(storeDir, { recursive: true, force: true });
  }
});

async function start(input: GenerateAndPollInput): Promise<WorkflowHandle> {
  const client = await testClient();
  const handle = await client.workflow.start('GenerateAndPoll', {
    taskQueue: worker.taskQueue,
    workflowId: `gap-${randomUUID()}`,
    args: [input],
  });
  handles.push(handle);
  return handle;
}

async function failureOf(handle: WorkflowHandle): Promise<ApplicationFailure> {
  const err = await handle.result().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(WorkflowFailedError);
  // GenerateAndPoll unwraps activity failures itself; the fixture workflow does not.
  const outer = (err as WorkflowFailedError).cause;
  const cause = outer instanceof ActivityFailure ? outer.cause : outer;
  expect(cause).toBeInstanceOf(ApplicationFailure);
  return cause as ApplicationFailure;
}

async function until<T>(get: () => T | undefined, what: string, timeoutMs = 30_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = get();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

interface EntryCase {
  label: string;
  entryPoint: GatewayTaskEntryPoint;
  queryKind?: string;
  body: (prompt: string) => Record<string, unknown>;
  createPath: string;
  queryPath: (encodedId: string) => string;
  successState: string;
  /** The record names a result URL (the /v1/videos object does not: its file is kept in the store). */
  hasUrl: boolean;
}

const CASES: EntryCase[] = [
  {
    label: 'unified video',
    entryPoint: 'unifiedVideo',
    body: (prompt) => ({ model: 'video-model-1', prompt }),
    createPath: '/v1/video/generations',
    queryPath: (id) => `/v1/video/generations/${id}`,
    successState: 'succeeded',
    hasUrl: true,
  },
  ...(['text2video', 'image2video', 'omni-video'] as const).map((kind): EntryCase => ({
    label: `vendor A, ${kind} query`,
    entryPoint: 'vendorA',
    queryKind: kind,
    body: (prompt) => ({ model_name: 'vendor-a-v1', prompt, duration: '5' }),
    createPath: '/video-a/v1/videos/text2video',
    queryPath: (id) => `/video-a/v1/videos/${kind}/${id}`,
    successState: 'succeed',
    hasUrl: true,
  })),
  {
    label: 'vendor B',
    entryPoint: 'vendorB',
    body: (prompt) => ({ model: 'vendor-b-2', prompt }),
    createPath: '/video-b/ent/v2/text2video',
    queryPath: (id) => `/video-b/ent/v2/tasks/${id}/creations`,
    successState: 'success',
    hasUrl: true,
  },
  {
    label: '/v1/videos',
    entryPoint: 'videos',
    body: (prompt) => ({ model: 'sora-like', prompt, seconds: '4' }),
    createPath: '/v1/videos',
    queryPath: (id) => `/v1/videos/${id}`,
    successState: 'completed',
    hasUrl: false,
  },
  {
    label: 'aigc-images',
    entryPoint: 'aigcImages',
    body: (prompt) => ({ prompt, size: '1024x1024' }),
    createPath: '/v1/aigc-images/generations',
    queryPath: (id) => `/v1/aigc-images/generations/${id}`,
    successState: 'SUCCESS',
    hasUrl: true,
  },
];

const creates = (c: EntryCase, marker: string) =>
  sb
    .requests()
    .filter((r) => r.method === 'POST' && r.path === c.createPath && JSON.stringify(r.body ?? null).includes(marker));
const queriesOf = (taskId: string) =>
  sb.requests().filter((r) => r.method === 'GET' && r.taskId === taskId && !r.path.endsWith('/content'));
const downloadsOf = (taskId: string) =>
  sb.requests().filter((r) => r.method === 'GET' && r.path === `/v1/videos/${encodeURIComponent(taskId)}/content`);
const tasksOf = (marker: string) => sb.videoTasks().filter((t) => JSON.stringify(t.body ?? null).includes(marker));
const input = (c: EntryCase, prompt: string, extra: Partial<GenerateAndPollInput> = {}): GenerateAndPollInput => ({
  entryPoint: c.entryPoint,
  ...(c.queryKind ? { queryKind: c.queryKind } : {}),
  body: c.body(prompt),
  timing,
  ...extra,
});

function expectBearerOnly(entries: RequestLogEntry[]) {
  for (const e of entries) {
    expect(e.headers.authorization).toBe(`Bearer ${sb.apiKey}`);
    expect(e.headers['x-access-token']).toBeUndefined();
    expect(e.headers['x-track-id']).toBeUndefined();
  }
}

describe.concurrent.each(CASES)('$label', (c) => {
  it('creates once (a 503 is retried after its Retry-After), polls its query path, obeys a Retry-After on a query, succeeds', async () => {
    const marker = `ra-${randomUUID()}`;
    sb.setVideoOutcome({ promptIncludes: marker }, 'succeeded', 3_000);
    sb.addFault({
      operation: 'other',
      match: { url: marker },
      fault: { type: 'status', status: 503, retryAfter: '1' },
    });
    const handle = await start(input(c, `a lighthouse at dusk ${marker}`));

    const taskId = await until(() => creates(c, marker).find((r) => r.status === 200)?.taskId, 'the create');
    sb.addFault({ operation: 'other', match: { taskId }, fault: { type: 'status', status: 429, retryAfter: '2' } });
    const result = (await handle.result()) as GenerateAndPollResult;

    expect(result).toMatchObject({ entryPoint: c.entryPoint, taskId, state: 'succeeded', rawState: c.successState });
    if (c.hasUrl) {
      expect(result.url).toContain(`/gateway-files/${encodeURIComponent(taskId)}.`);
      expect(downloadsOf(taskId)).toHaveLength(0);
    } else {
      // Issue 37 defect 1: never `url: undefined`; the file is downloaded with the key and kept.
      expect(result.url).toMatch(/^file:\/\//);
      expect(await readFile(fileURLToPath(result.url), 'utf8')).toBe(`sandbox video ${taskId}`);
      expect(downloadsOf(taskId)).toHaveLength(1);
      expectBearerOnly(downloadsOf(taskId));
    }
    const made = creates(c, marker);
    expect(made.map((r) => r.status)).toEqual([503, 200]);
    expect(made[1]!.at - made[0]!.at).toBeGreaterThanOrEqual(1_000 - 1);
    expect(tasksOf(marker)).toHaveLength(1);

    const polls = queriesOf(taskId);
    expect(polls.every((q) => q.path === c.queryPath(encodeURIComponent(taskId)))).toBe(true);
    const limited = polls.findIndex((q) => q.status === 429);
    expect(limited).toBeGreaterThanOrEqual(0);
    expect(polls[limited + 1]!.at - polls[limited]!.at).toBeGreaterThanOrEqual(2_000 - 1);
    for (let i = 1; i < polls.length; i++)
      expect(polls[i]!.at - polls[i - 1]!.at).toBeGreaterThanOrEqual(timing.minQueryIntervalMs - 1);
    expectBearerOnly([...made, ...polls]);

    const progress = await handle.query(generateAndPollProgressQuery);
    expect(progress).toMatchObject({
      stage: 'succeeded',
      entryPoint: c.entryPoint,
      taskId,
      state: c.successState,
      reading: 'succeeded',
      creates: 1,
    });
    expect(progress.queries).toBe(polls.length);
  });

  it('a 500 after the create was committed: no second create, exactly one task, SubmitUnconfirmed with the evidence', async () => {
    const marker = `amb-${randomUUID()}`;
    sb.addFault({ operation: 'other', match: { url: marker }, fault: { type: 'status', status: 500, commit: true } });
    const handle = await start(input(c, `a harbour at dawn ${marker}`));
    const failure = await failureOf(handle);
    expect(failure.type).toBe('SubmitUnconfirmed');
    expect(failure.message).toContain('ambiguous create: check the provider before retrying');
    expect(failure.details?.[0]).toMatchObject({
      entryPoint: c.entryPoint,
      createRequests: 1,
      evidence: [{ status: 500, ambiguous: true }],
    });

    const made = creates(c, marker);
    expect(made).toHaveLength(1);
    expect(made[0]!.status).toBe(500);
    expect(tasksOf(marker)).toHaveLength(1);
    expect(tasksOf(marker)[0]!.id).toBe(made[0]!.taskId);
    expect(queriesOf(made[0]!.taskId!)).toHaveLength(0);
    expect(await handle.query(generateAndPollProgressQuery)).toMatchObject({ stage: 'failed', creates: 1 });
  });
});

describe('states and outcomes', () => {
  const unified = CASES[0]!;
  const vendorA = CASES[1]!;

  it('a state no adapter knows is not final and shows in progress as received', async () => {
    const marker = `unk-${randomUUID()}`;
    // The unknown state lasts the second half of the task: 6 s, for a poll of a loaded machine to see it.
    sb.setVideoOutcome({ promptIncludes: marker }, 'succeeded', 12_000);
    const handle = await start(input(vendorA, `state-unknown ${marker}`));
    let progress = await handle.query(generateAndPollProgressQuery);
    for (let i = 0; i < 300 && progress.state !== 'moderating'; i++) {
      await new Promise((r) => setTimeout(r, 50));
      progress = await handle.query(generateAndPollProgressQuery);
    }
    expect(progress).toMatchObject({ stage: 'polling', state: 'moderating', reading: 'unknown' });
    const result = (await handle.result()) as GenerateAndPollResult;
    expect(result.rawState).toBe('succeed');
  });

  it('a failed task ends GenerationFailed with the service error and the record', async () => {
    const handle = await start(input(vendorA, `video-fail ${randomUUID()}`));
    const failure = await failureOf(handle);
    expect(failure.type).toBe('GenerationFailed');
    expect(failure.message).toContain('ended failed');
    expect(failure.details?.[0]).toMatchObject({
      entryPoint: 'vendorA',
      state: 'failed',
      error: { message: expect.stringContaining('failed') },
    });
  });

  it('cancelled and expired tasks (unified video vocabulary) end GenerationCancelled / GenerationExpired', async () => {
    const [cancelled, expired] = await Promise.all([
      start(input(unified, `video-cancel ${randomUUID()}`)),
      start(input(unified, `video-expire ${randomUUID()}`)),
    ]);
    expect((await failureOf(cancelled)).type).toBe('GenerationCancelled');
    expect((await failureOf(expired)).type).toBe('GenerationExpired');
  });

  it('a 400 on create is final: VideoRequestRejected after one request', async () => {
    const marker = `bad-${randomUUID()}`;
    const handle = await start({ entryPoint: 'videos', body: { model: marker }, timing });
    const failure = await failureOf(handle);
    expect(failure.type).toBe('VideoRequestRejected');
    expect(sb.requests().filter((r) => JSON.stringify(r.body ?? null).includes(marker))).toHaveLength(1);
  });

  it('not final within generationTimeoutMs: GenerationTimedOut naming the task', async () => {
    const marker = `slow-${randomUUID()}`;
    sb.setVideoOutcome({ promptIncludes: marker }, 'succeeded', 30_000);
    const handle = await start(input(unified, marker, { timing: { ...timing, generationTimeoutMs: 2_000 } }));
    const failure = await failureOf(handle);
    expect(failure.type).toBe('GenerationTimedOut');
    expect(failure.details?.[0]).toMatchObject({ taskId: tasksOf(marker)[0]!.id });
  });

  it('a /v1/videos job on a worker without VIDEO_STORE: InvalidInput naming the setting, before any request (issue 38)', async () => {
    // Its result is served only to the key, so it is kept in the store: without one it would be paid for, then lost.
    const noStore = await startWorker({ workflowBundle: bundle, activities: createActivities({ video, review }) });
    try {
      const before = sb.requests().length;
      const handle = await (
        await testClient()
      ).workflow.start('GenerateAndPoll', {
        taskQueue: noStore.taskQueue,
        workflowId: `gap-${randomUUID()}`,
        args: [{ entryPoint: 'videos', body: { model: 'sora-like', prompt: 'kept nowhere', seconds: '4' } }],
      });
      handles.push(handle);
      const failure = await failureOf(handle);
      expect(failure.type).toBe('InvalidInput');
      expect(failure.message).toMatch(/entryPoint: .*VIDEO_STORE.*before any call/);
      expect(sb.requests().length).toBe(before);
    } finally {
      await noStore.stop();
    }
  });

  it('invalid input fails InvalidInput before any request', async () => {
    const before = sb.requests().length;
    const bad = [
      { entryPoint: 'videos', queryKind: 'omni-video', body: { prompt: 'p' } },
      { entryPoint: 'vendorA', queryKind: 'sideways', body: { prompt: 'p' } },
      { entryPoint: 'videos', body: { model: 'm' }, checkWellKnown: true },
      { entryPoint: 'nowhere', body: {} },
      { entryPoint: 'videos', body: [] },
    ];
    for (const b of bad) {
      const failure = await failureOf(await start(b as GenerateAndPollInput));
      expect(failure.type).toBe('InvalidInput');
    }
    expect(sb.requests().length).toBe(before);
  });
});

describe('resubmitOnAmbiguity (opt-in): the one policy of every create (src/workflows/ambiguity.ts)', () => {
  const unified = CASES[0]!;
  // Nothing can name a task these entry points made (no callback), so there is nothing to wait for before
  // resubmitting: a grace longer than the test may run shows that none is waited.
  const noGrace = { ...timing, createAmbiguityGraceMs: 600_000 };

  it('a 500 before commit: resubmitted at once, one task, success', async () => {
    const marker = `resub-${randomUUID()}`;
    sb.addFault({ operation: 'other', match: { url: marker }, fault: { type: 'status', status: 500 } });
    const handle = await start(input(unified, marker, { resubmitOnAmbiguity: true, timing: noGrace }));
    const result = (await handle.result()) as GenerateAndPollResult;
    const made = creates(unified, marker);
    expect(made.map((r) => r.status)).toEqual([500, 200]);
    expect(tasksOf(marker).map((t) => t.id)).toEqual([result.taskId]);
    expect(await handle.query(generateAndPollProgressQuery)).toMatchObject({ creates: 2, stage: 'succeeded' });
  });

  it('a 500 after commit: the resubmission makes a second task — why it is off by default', async () => {
    const marker = `dup-${randomUUID()}`;
    sb.addFault({ operation: 'other', match: { url: marker }, fault: { type: 'status', status: 500, commit: true } });
    const result = (await (
      await start(input(unified, marker, { resubmitOnAmbiguity: true, timing: noGrace }))
    ).result()) as GenerateAndPollResult;
    expect(creates(unified, marker)).toHaveLength(2);
    expect(tasksOf(marker)).toHaveLength(2);
    expect(tasksOf(marker).map((t) => t.id)).toContain(result.taskId);
  });

  it('two ambiguous creates in a row: the third create goes out, as a ReviewThenGenerate create would', async () => {
    const marker = `twice-${randomUUID()}`;
    sb.addFault({ operation: 'other', times: 2, match: { url: marker }, fault: { type: 'status', status: 502 } });
    const handle = await start(input(unified, marker, { resubmitOnAmbiguity: true, timing: noGrace }));
    const result = (await handle.result()) as GenerateAndPollResult;
    expect(creates(unified, marker).map((r) => r.status)).toEqual([502, 502, 200]);
    expect(tasksOf(marker).map((t) => t.id)).toEqual([result.taskId]);
    expect(await handle.query(generateAndPollProgressQuery)).toMatchObject({ creates: 3, stage: 'succeeded' });
  });

  it(`ambiguous ${MAX_AMBIGUOUS_SUBMITS} times in a row: SubmitUnconfirmed, not resubmitted again`, async () => {
    const marker = `thrice-${randomUUID()}`;
    sb.addFault({
      operation: 'other',
      times: MAX_AMBIGUOUS_SUBMITS,
      match: { url: marker },
      fault: { type: 'status', status: 502 },
    });
    const failure = await failureOf(
      await start(input(unified, marker, { resubmitOnAmbiguity: true, timing: noGrace })),
    );
    expect(failure.type).toBe('SubmitUnconfirmed');
    expect(failure.message).toContain(`ambiguous ${MAX_AMBIGUOUS_SUBMITS} times in a row`);
    expect(failure.details?.[0]).toMatchObject({ createRequests: MAX_AMBIGUOUS_SUBMITS });
    expect(creates(unified, marker)).toHaveLength(MAX_AMBIGUOUS_SUBMITS);
  });
});

async function callGateway(
  inputs: GatewayCallInput,
  { taskQueue = worker.taskQueue, startToCloseMs }: { taskQueue?: string; startToCloseMs?: number } = {},
): Promise<WorkflowHandle> {
  const client = await testClient();
  const handle = await client.workflow.start(startToCloseMs === undefined ? 'CallGatewayOnce' : 'CallGatewayWithin', {
    taskQueue,
    workflowId: `call-${randomUUID()}`,
    args: startToCloseMs === undefined ? [inputs] : [inputs, startToCloseMs],
  });
  handles.push(handle);
  return handle;
}

/** How a run ended, without asserting it yet (so a test can check the request log first). */
async function settle(handle: WorkflowHandle): Promise<{ result?: unknown; error?: unknown }> {
  return handle.result().then(
    (result: unknown) => ({ result }),
    (error: unknown) => ({ error }),
  );
}

describe('rtgCallGateway in a workflow', () => {
  const call = (inputs: GatewayCallInput) => callGateway(inputs);

  it('a 503 is retried; the answer comes back whole', async () => {
    const marker = `sync-${randomUUID()}`;
    sb.addFault({ operation: 'other', match: { url: marker }, fault: { type: 'status', status: 503 } });
    const handle = await call({
      endpoint: 'chatCompletions',
      body: { model: 'text-model-1', messages: [{ role: 'user', content: marker }] },
      checkWellKnown: true,
    });
    const result = (await handle.result()) as {
      status: number;
      body: { choices: Array<{ message: { content: string } }> };
    };
    expect(result.status).toBe(200);
    expect(result.body.choices[0]!.message.content).toContain(marker);
    const sent = sb.requests().filter((r) => JSON.stringify(r.body ?? null).includes(marker));
    expect(sent.map((r) => r.status)).toEqual([503, 200]);
    expectBearerOnly(sent);
  });

  it('path parameters are encoded; a 400 is final (one request); invalid input is refused before sending', async () => {
    const model = `m/${randomUUID()}:x`;
    const ok = (await (
      await call({ endpoint: 'generateContent', params: { model }, body: { contents: [{ parts: [{ text: 'hi' }] }] } })
    ).result()) as { body: { modelVersion: string } };
    expect(ok.body.modelVersion).toBe(model);
    expect(
      sb.requests().filter((r) => r.path === `/v1beta/models/${encodeURIComponent(model)}:generateContent`),
    ).toHaveLength(1);

    const marker = `rej-${randomUUID()}`;
    const rejected = await failureOf(await call({ endpoint: 'messages', body: { model: marker } }));
    expect(rejected.type).toBe('VideoRequestRejected');
    expect(sb.requests().filter((r) => JSON.stringify(r.body ?? null).includes(marker))).toHaveLength(1);

    const before = sb.requests().length;
    const invalid = await failureOf(await call({ endpoint: 'messages', body: { model: 'm' }, checkWellKnown: true }));
    expect(invalid.type).toBe('InvalidInput');
    expect(sb.requests().length).toBe(before);
  });
});

// rtgCallGateway and the entry points that create a task: a user's retry policy must never send a create
// twice. Each fault below is armed with `commit: true`, so the sandbox creates the task and then answers
// badly: a second POST would be a second task.
describe('rtgCallGateway never sends a create twice', () => {
  const createEndpoints = GATEWAY_ENDPOINT_NAMES.filter((n) => GATEWAY_ENDPOINTS[n].kind === 'create');

  it('refuses every task-creating endpoint before any request, naming GenerateAndPoll and rtgCreateGatewayTask', async () => {
    expect([...createEndpoints].sort()).toEqual([
      'aigcImages',
      'vendorAText2Video',
      'vendorBText2Video',
      'videoGenerations',
      'videos',
    ]);
    const outcomes = await Promise.all(
      createEndpoints.map(async (endpoint) => {
        const c = CASES.find((k) => k.createPath === GATEWAY_ENDPOINTS[endpoint].path)!;
        const marker = `refuse-${endpoint}-${randomUUID()}`;
        sb.addFault({
          operation: 'other',
          match: { url: marker },
          fault: { type: 'status', status: 500, commit: true },
        });
        const { error } = await settle(await callGateway({ endpoint, body: c.body(marker) }));
        return { endpoint, c, error, creates: creates(c, marker).length, tasks: tasksOf(marker).length };
      }),
    );
    expect(outcomes.map(({ endpoint, creates, tasks }) => ({ endpoint, creates, tasks }))).toEqual(
      createEndpoints.map((endpoint) => ({ endpoint, creates: 0, tasks: 0 })),
    );
    for (const { c, error } of outcomes) {
      expect(error).toBeInstanceOf(WorkflowFailedError);
      const failure = (error as WorkflowFailedError).cause?.cause as ApplicationFailure;
      expect(failure).toBeInstanceOf(ApplicationFailure);
      expect(failure).toMatchObject({ type: 'InvalidInput', nonRetryable: true });
      expect(failure.message).toContain('GenerateAndPoll');
      expect(failure.message).toContain('rtgCreateGatewayTask');
      expect(failure.message).toContain(`entryPoint: '${c.entryPoint}'`);
    }
  });

  it('a synchronous generation answered 500 after it was processed is sent again (documented: no task is left)', async () => {
    const marker = `sync500-${randomUUID()}`;
    sb.addFault({ operation: 'other', match: { url: marker }, fault: { type: 'status', status: 500, commit: true } });
    const { result } = await settle(await callGateway({ endpoint: 'imagesGenerations', body: { prompt: marker } }));
    expect(result).toMatchObject({ endpoint: 'imagesGenerations', status: 200 });
    const sent = sb.requests().filter((r) => JSON.stringify(r.body ?? null).includes(marker));
    expect(sent.map((r) => r.status)).toEqual([500, 200]);
  });

  describe('vendor B with no query path (create only): the create is sent at most once', () => {
    const vendorB = CASES.find((c) => c.entryPoint === 'vendorB')!;
    let createOnly: VideoClient;
    let createOnlyWorker: RunningWorker;

    beforeAll(async () => {
      createOnly = new VideoClient({
        baseUrl: sb.videoBaseUrl,
        apiKey: sb.apiKey,
        cancelMethod: 'POST',
        cancelPath: '/v1/task/cancel/{id}',
        timeoutMs: 2_000,
        gateway: { vendorBQueryPath: false },
      });
      createOnlyWorker = await startWorker({
        workflowBundle: bundle,
        activities: createActivities({ video: createOnly, review }),
      });
    });
    afterAll(async () => {
      await createOnlyWorker?.stop();
      await createOnly?.close();
    });

    const callCreateOnly = (marker: string, startToCloseMs?: number) =>
      callGateway(
        { endpoint: 'vendorBText2Video', body: vendorB.body(marker) },
        { taskQueue: createOnlyWorker.taskQueue, ...(startToCloseMs !== undefined ? { startToCloseMs } : {}) },
      );

    /** The activity's failure, after checking the request log: exactly one create POST, exactly one task. */
    async function oneCreateThenFailure(handle: WorkflowHandle, marker: string): Promise<ApplicationFailure> {
      const { error } = await settle(handle);
      expect({ creates: creates(vendorB, marker).length, tasks: tasksOf(marker).length }).toEqual({
        creates: 1,
        tasks: 1,
      });
      expect(error).toBeInstanceOf(WorkflowFailedError);
      const outer = (error as WorkflowFailedError).cause;
      expect(outer).toBeInstanceOf(ActivityFailure);
      expect(outer?.cause).toBeInstanceOf(ApplicationFailure);
      return outer!.cause as ApplicationFailure;
    }

    it.concurrent.each([
      { label: '500 after commit', fault: { type: 'status', status: 500, commit: true } as const, status: 500 },
      { label: 'client time-out (hang after commit)', fault: { type: 'hang', ms: 3_000, commit: true } as const },
      { label: 'connection reset after commit', fault: { type: 'reset', commit: true } as const },
    ])('$label: one create POST, CreateAmbiguous (non-retryable, with the evidence)', async ({ fault, status }) => {
      const marker = `once-${randomUUID()}`;
      sb.addFault({ operation: 'other', match: { url: marker }, fault });
      const failure = await oneCreateThenFailure(await callCreateOnly(marker), marker);
      expect(failure).toMatchObject({ type: 'CreateAmbiguous', nonRetryable: true });
      expect(failure.message).toContain('not resubmitted blindly');
      expect(failure.details?.[0]).toMatchObject({
        operation: 'video.gateway.vendorBText2Video',
        ambiguous: true,
        ...(status ? { status } : {}),
      });
    });

    it('an attempt that timed out (activity deadline) is not followed by a second create', async () => {
      const marker = `deadline-${randomUUID()}`;
      sb.addFault({ operation: 'other', match: { url: marker }, fault: { type: 'hang', ms: 3_000, commit: true } });
      const failure = await oneCreateThenFailure(await callCreateOnly(marker, 1_000), marker);
      expect(failure).toMatchObject({ type: 'CreateAmbiguous', nonRetryable: true });
      expect(failure.message).toContain('a previous create attempt ended without an answer');
    });

    it('a clear answer is returned whole after one create; a 503 (not created) may be sent again', async () => {
      const marker = `ok-${randomUUID()}`;
      sb.addFault({ operation: 'other', match: { url: marker }, fault: { type: 'status', status: 503 } });
      const { result } = await settle(await callCreateOnly(marker));
      expect(result).toMatchObject({
        endpoint: 'vendorBText2Video',
        status: 200,
        body: { task_id: tasksOf(marker)[0]?.id },
      });
      expect(creates(vendorB, marker).map((r) => r.status)).toEqual([503, 200]);
      expect(tasksOf(marker)).toHaveLength(1);
    });
  });
});
