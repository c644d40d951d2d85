// The gateway entry points of VideoClient against the sandbox over real HTTP. Per entry point: the method
// and path that reached the service, the bearer header (and no review header), the answer kept whole,
// and path parameters that cannot leave their segment. Then the shared rules: validation before sending,
// error classification, multipart, and the configurable vendor B query path.
import { FormData as UndiciFormData } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { auditRequestLog, startSandbox, type RequestLogEntry, type Sandbox } from 'temporal-review-video-sandbox';
import { ServiceError } from '../../src/services/errors.js';
import { RequestValidationError } from '../../src/model/validation.js';
import { VideoClient } from '../../src/services/video/client.js';
import type { GatewayResponse } from '../../src/services/video/gateway.js';
import {
  GATEWAY_ENDPOINT_NAMES,
  GATEWAY_ENDPOINTS,
  type GatewayEndpointName,
} from '../../src/model/video/gateway-endpoints.js';

let sb: Sandbox;
let video: VideoClient;

const cfg = (over: { apiKey?: string; gateway?: { vendorBQueryPath?: string | false } } = {}) => ({
  baseUrl: sb.videoBaseUrl,
  apiKey: over.apiKey ?? sb.apiKey,
  cancelMethod: 'POST' as const,
  cancelPath: '/v1/task/cancel/{id}',
  timeoutMs: 5_000,
  ...(over.gateway ? { gateway: over.gateway } : {}),
});

beforeAll(async () => {
  sb = await startSandbox({ videoDurationMs: 200 });
  video = new VideoClient(cfg());
});
afterAll(async () => {
  await video?.close();
  await sb?.close();
});
beforeEach(() => sb.reset());

async function caught(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => {
      throw new Error('expected the call to throw');
    },
    (e: unknown) => e,
  );
}

/** The one request the sandbox saw since the last reset. */
function onlyRequest(): RequestLogEntry {
  const log = sb.requests();
  expect(log).toHaveLength(1);
  return log[0]!;
}

function expectVideoAuth(entry: RequestLogEntry) {
  expect(entry.headers.authorization).toBe(`Bearer ${sb.apiKey}`);
  expect(entry.headers['x-access-token']).toBeUndefined();
  expect(entry.headers['x-track-id']).toBeUndefined();
}

const chat = { model: 'text-model-1', messages: [{ role: 'user', content: 'hello gateway' }] };
const gen = { contents: [{ role: 'user', parts: [{ text: 'hello gateway' }] }] };

interface SyncCase {
  name: GatewayEndpointName;
  path: string;
  call: (client: VideoClient) => Promise<GatewayResponse>;
  check: (body: Record<string, unknown>) => void;
}

const syncCases: SyncCase[] = [
  {
    name: 'chatCompletions',
    path: '/v1/chat/completions',
    call: (v) => v.chatCompletions(chat, { checkWellKnown: true }),
    check: (b) => {
      expect(b.object).toBe('chat.completion');
      expect(JSON.stringify(b.choices)).toContain('hello gateway');
    },
  },
  {
    name: 'responses',
    path: '/v1/responses',
    call: (v) => v.responses({ model: 'text-model-1', input: 'hello gateway' }, { checkWellKnown: true }),
    check: (b) => expect(b).toMatchObject({ object: 'response', status: 'completed' }),
  },
  {
    name: 'generateContent',
    path: '/v1beta/models/text-model-1:generateContent',
    call: (v) => v.generateContent('text-model-1', gen, { checkWellKnown: true }),
    check: (b) => expect(b.modelVersion).toBe('text-model-1'),
  },
  {
    name: 'messages',
    path: '/v1/messages',
    call: (v) =>
      v.messages(
        { model: 'text-model-1', max_tokens: 64, messages: [{ role: 'user', content: 'hello gateway' }] },
        { checkWellKnown: true },
      ),
    check: (b) => expect(b).toMatchObject({ type: 'message', role: 'assistant', stop_reason: 'end_turn' }),
  },
  {
    name: 'imagesGenerations',
    path: '/v1/images/generations',
    call: (v) => v.imagesGenerations({ prompt: 'a red kite', n: 2 }, { checkWellKnown: true }),
    check: (b) => expect(b.data).toHaveLength(2),
  },
  {
    name: 'imagesEdits',
    path: '/v1/images/edits',
    call: (v) =>
      v.imagesEdits({ prompt: 'make it blue', image: 'https://cdn.example.com/kite.png' }, { checkWellKnown: true }),
    check: (b) => expect(b.data).toHaveLength(1),
  },
  {
    name: 'geminiProImage',
    path: '/v1beta/models/gemini-3-pro-image-preview:generateContent',
    call: (v) => v.geminiProImage(gen, { checkWellKnown: true }),
    check: (b) => expect(JSON.stringify(b.candidates)).toContain('inlineData'),
  },
  {
    name: 'geminiFlashImage',
    path: '/v1beta/models/gemini-2.5-flash-image:generateContent',
    call: (v) => v.geminiFlashImage(gen, { checkWellKnown: true }),
    check: (b) => expect(b.modelVersion).toBe('gemini-2.5-flash-image'),
  },
];

interface AsyncCase {
  create: GatewayEndpointName;
  createPath: string;
  createCall: (prompt: string) => Promise<GatewayResponse>;
  idOf: (body: Record<string, unknown>) => string;
  queries: Array<{
    name: GatewayEndpointName;
    path: (id: string) => string;
    call: (id: string) => Promise<GatewayResponse>;
  }>;
}

const data = (b: Record<string, unknown>) => b.data as Record<string, unknown>;

const asyncCases: AsyncCase[] = [
  {
    create: 'videoGenerations',
    createPath: '/v1/video/generations',
    createCall: (prompt) => video.createVideoGeneration({ model: 'video-model-1', prompt }),
    idOf: (b) => b.task_id as string,
    queries: [
      {
        name: 'videoGenerationsGet',
        path: (id) => `/v1/video/generations/${id}`,
        call: (id) => video.getVideoGeneration(id),
      },
    ],
  },
  {
    create: 'vendorAText2Video',
    createPath: '/video-a/v1/videos/text2video',
    createCall: (prompt) => video.createVendorAText2Video({ model_name: 'vendor-a-v1', prompt }),
    idOf: (b) => data(b).task_id as string,
    queries: [
      {
        name: 'vendorAText2VideoGet',
        path: (id) => `/video-a/v1/videos/text2video/${id}`,
        call: (id) => video.getVendorAText2Video(id),
      },
      {
        name: 'vendorAImage2VideoGet',
        path: (id) => `/video-a/v1/videos/image2video/${id}`,
        call: (id) => video.getVendorAImage2Video(id),
      },
      {
        name: 'vendorAOmniVideoGet',
        path: (id) => `/video-a/v1/videos/omni-video/${id}`,
        call: (id) => video.getVendorAOmniVideo(id),
      },
    ],
  },
  {
    create: 'vendorBText2Video',
    createPath: '/video-b/ent/v2/text2video',
    createCall: (prompt) => video.createVendorBText2Video({ model: 'vendor-b-2', prompt }),
    idOf: (b) => b.task_id as string,
    queries: [
      {
        name: 'vendorBTaskGet',
        path: (id) => `/video-b/ent/v2/tasks/${id}/creations`,
        call: (id) => video.getVendorBTask(id),
      },
    ],
  },
  {
    create: 'videos',
    createPath: '/v1/videos',
    createCall: (prompt) => video.createVideo({ model: 'sora-like', prompt }, { checkWellKnown: true }),
    idOf: (b) => b.id as string,
    queries: [{ name: 'videosGet', path: (id) => `/v1/videos/${id}`, call: (id) => video.getVideo(id) }],
  },
  {
    create: 'aigcImages',
    createPath: '/v1/aigc-images/generations',
    createCall: (prompt) => video.createAigcImage({ prompt }),
    idOf: (b) => data(b).task_id as string,
    queries: [
      {
        name: 'aigcImagesGet',
        path: (id) => `/v1/aigc-images/generations/${id}`,
        call: (id) => video.getAigcImage(id),
      },
    ],
  },
];

it('every entry point of the table has a case here', () => {
  const covered = [
    ...syncCases.map((c) => c.name),
    ...asyncCases.flatMap((c) => [c.create, ...c.queries.map((q) => q.name)]),
  ];
  expect(new Set(covered)).toEqual(new Set(GATEWAY_ENDPOINT_NAMES));
});

describe.each(syncCases)('$name', (c) => {
  it(`POST ${c.path} with the bearer key only; the answer is kept whole`, async () => {
    const res = await c.call(video);
    expect(res.status).toBe(200);
    expect(res.endpoint).toBe(c.name);
    const entry = onlyRequest();
    expect(entry.method).toBe('POST');
    expect(entry.path).toBe(c.path);
    expect(entry.status).toBe(200);
    expectVideoAuth(entry);
    expect(entry.gateway).toBe('sync');
    expect(auditRequestLog(sb.requests(), { minQueryIntervalMs: 0 })).toEqual([]);
    expect(res.body).toEqual(entry.response);
    c.check(res.body as Record<string, unknown>);
  });

  it('a rejected key is a final 401 ServiceError', async () => {
    const wrong = new VideoClient(cfg({ apiKey: 'sk-wrong' }));
    try {
      const err = await caught(c.call(wrong));
      expect(err).toBeInstanceOf(ServiceError);
      expect((err as ServiceError).status).toBe(401);
      expect((err as ServiceError).retryable).toBe(false);
      expect(onlyRequest().path).toBe(c.path);
    } finally {
      await wrong.close();
    }
  });
});

describe.each(asyncCases)('$create', (c) => {
  it(`POST ${c.createPath}, then each query path with the task id, bearer key only`, async () => {
    const created = await c.createCall('a lighthouse at dusk');
    const createEntry = onlyRequest();
    expect(createEntry.method).toBe('POST');
    expect(createEntry.path).toBe(c.createPath);
    expectVideoAuth(createEntry);
    const id = c.idOf(created.body as Record<string, unknown>);
    expect(id).toEqual(expect.any(String));
    expect(createEntry.taskId).toBe(id);
    expect(createEntry.gateway).toBe('create');
    for (const q of c.queries) {
      sb.reset();
      // reset() forgets tasks: create again, then query this path.
      const again = c.idOf((await c.createCall('a lighthouse at dusk')).body as Record<string, unknown>);
      const res = await q.call(again);
      expect(res.endpoint).toBe(q.name);
      const entry = sb.requests()[1]!;
      expect(entry.method).toBe('GET');
      expect(entry.path).toBe(q.path(again));
      expect(entry.taskId).toBe(again);
      expectVideoAuth(entry);
      expect(entry.gateway).toBe('query');
      expect(auditRequestLog(sb.requests(), { minQueryIntervalMs: 0 })).toEqual([]);
      expect(res.body).toEqual(entry.response);
      expect(JSON.stringify(res.body)).toContain(again);
    }
  });

  it.each(c.queries.map((q) => q.name))(
    '%s: an id with / ? # : and a percent sign stays in its segment (404, decoded id seen by the service)',
    async (name) => {
      const q = c.queries.find((x) => x.name === name)!;
      const id = 'x/../../v1/chat/completions?a=1#frag:%zz';
      const err = await caught(q.call(id));
      expect(err).toBeInstanceOf(ServiceError);
      expect((err as ServiceError).status).toBe(404);
      const entry = onlyRequest();
      expect(entry.path).toBe(q.path(encodeURIComponent(id)));
      expect(entry.path).not.toContain('?');
      expect(entry.taskId).toBe(id);
    },
  );

  it.each(c.queries.map((q) => q.name))('%s: an empty id, "." or ".." is refused before sending', async (name) => {
    const q = c.queries.find((x) => x.name === name)!;
    for (const id of ['', '.', '..']) expect(await caught(q.call(id))).toBeInstanceOf(RequestValidationError);
    expect(sb.requests()).toHaveLength(0);
  });
});

describe('{model} of generateContent', () => {
  it('a model with a slash or a colon cannot escape the path', async () => {
    const model = 'gemini/../../v1/chat:completions';
    const res = await video.generateContent(model, gen);
    const entry = onlyRequest();
    expect(entry.path).toBe('/v1beta/models/gemini%2F..%2F..%2Fv1%2Fchat%3Acompletions:generateContent');
    expect((res.body as { modelVersion: string }).modelVersion).toBe(model);
  });

  it('a model that names the image model path reaches that path, encoded the same way', async () => {
    await video.generateContent('gemini-2.5-flash-image', gen);
    expect(onlyRequest().path).toBe(GATEWAY_ENDPOINTS.geminiFlashImage.path);
  });

  it('an empty model, or a parameter the path does not have, is refused before sending', async () => {
    expect(await caught(video.generateContent('', gen))).toBeInstanceOf(RequestValidationError);
    expect(await caught(video.gateway('chatCompletions', { params: { model: 'm' }, body: chat }))).toBeInstanceOf(
      RequestValidationError,
    );
    expect(await caught(video.gateway('videosGet', {}))).toBeInstanceOf(RequestValidationError);
    expect(sb.requests()).toHaveLength(0);
  });
});

describe('bodies', () => {
  it('a body that is not a JSON object is refused before sending, on every POST entry point', async () => {
    const posts = GATEWAY_ENDPOINT_NAMES.filter((n) => GATEWAY_ENDPOINTS[n].method === 'POST');
    for (const name of posts) {
      for (const body of [[1, 2], 'text', null, new Date()]) {
        const params = name === 'generateContent' ? { model: 'm' } : undefined;
        const err = await caught(video.gateway(name, { ...(params ? { params } : {}), body: body as never }));
        expect(err, name).toBeInstanceOf(RequestValidationError);
      }
    }
    expect(sb.requests()).toHaveLength(0);
  });

  it('a GET entry point takes no body', async () => {
    expect(await caught(video.gateway('videosGet', { params: { video_id: 'v1' }, body: {} }))).toBeInstanceOf(
      RequestValidationError,
    );
    expect(sb.requests()).toHaveLength(0);
  });

  it('the well-known check names the missing field; without it the body goes as given and the service answers 400', async () => {
    const err = await caught(video.chatCompletions({ model: 'text-model-1' }, { checkWellKnown: true }));
    expect(err).toBeInstanceOf(RequestValidationError);
    expect((err as RequestValidationError).issues).toEqual([
      { field: 'messages', rule: expect.stringContaining('required') },
    ]);
    expect(sb.requests()).toHaveLength(0);
    const rejected = await caught(video.chatCompletions({ model: 'text-model-1' }));
    expect(rejected).toBeInstanceOf(ServiceError);
    expect((rejected as ServiceError).status).toBe(400);
    expect((rejected as ServiceError).retryable).toBe(false);
    expect(onlyRequest().body).toEqual({ model: 'text-model-1' });
  });

  it('messages: max_tokens and user/assistant roles are checked on request', async () => {
    const err = await caught(
      video.messages(
        { model: 'm', max_tokens: 0, messages: [{ role: 'system', content: 'x' }] },
        { checkWellKnown: true },
      ),
    );
    expect((err as RequestValidationError).issues.map((i) => i.field).sort()).toEqual([
      'max_tokens',
      'messages[0].role',
    ]);
  });

  it('images edits as multipart/form-data (undici FormData and the global one)', async () => {
    for (const Form of [UndiciFormData, globalThis.FormData]) {
      sb.reset();
      const form = new Form();
      form.append('prompt', 'make it blue');
      form.append('image', new Blob([new Uint8Array([137, 80, 78, 71])], { type: 'image/png' }), 'kite.png');
      const res = await video.imagesEdits(form as UndiciFormData, { checkWellKnown: true });
      expect((res.body as { data: unknown[] }).data).toHaveLength(1);
      const entry = onlyRequest();
      expect(entry.path).toBe('/v1/images/edits');
      expect(entry.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
      expectVideoAuth(entry);
    }
  });

  it('a multipart form without the image is refused by the well-known check; FormData is refused where JSON is expected', async () => {
    const form = new UndiciFormData();
    form.append('prompt', 'make it blue');
    const err = await caught(video.imagesEdits(form, { checkWellKnown: true }));
    expect((err as RequestValidationError).issues).toEqual([
      { field: 'image', rule: expect.stringContaining('required') },
    ]);
    expect(await caught(video.gateway('chatCompletions', { body: form }))).toBeInstanceOf(RequestValidationError);
    expect(sb.requests()).toHaveLength(0);
  });
});

describe('error classification (as the native task API)', () => {
  it('500 on a create is ambiguous; 429 carries Retry-After; a reset after sending is ambiguous', async () => {
    sb.addFault({
      operation: 'other',
      match: { url: 'fault-500' },
      fault: { type: 'status', status: 500, commit: true },
    });
    const e500 = (await caught(video.createVideo({ prompt: 'fault-500' }))) as ServiceError;
    expect(e500).toBeInstanceOf(ServiceError);
    expect(e500.ambiguous).toBe(true);
    expect(e500.operation).toBe('video.gateway.videos');
    expect(sb.videoTasks()).toHaveLength(1); // committed: the task exists although the answer was a 500

    sb.addFault({
      operation: 'other',
      match: { url: 'fault-429' },
      fault: { type: 'status', status: 429, retryAfter: '3' },
    });
    const e429 = (await caught(video.chatCompletions({ ...chat, model: 'fault-429' }))) as ServiceError;
    expect(e429.retryable).toBe(true);
    expect(e429.ambiguous).toBe(false);
    expect(e429.retryAfterMs).toBe(3_000);

    sb.addFault({ operation: 'other', match: { url: 'fault-reset' }, fault: { type: 'reset', commit: false } });
    const reset = (await caught(video.createAigcImage({ prompt: 'fault-reset' }))) as ServiceError;
    expect(reset.kind).toBe('network');
    expect(reset.ambiguous).toBe(true);
  });

  it('a query fault is targeted by task id; a malformed 2xx is ambiguous', async () => {
    const id = (await video.createVideoGeneration({ model: 'video-model-1', prompt: 'p' })).body as { task_id: string };
    sb.addFault({ operation: 'other', match: { taskId: id.task_id }, fault: { type: 'malformed' } });
    const err = (await caught(video.getVideoGeneration(id.task_id))) as ServiceError;
    expect(err.kind).toBe('malformed-response');
    expect(err.ambiguous).toBe(true);
    expect((await video.getVideoGeneration(id.task_id)).status).toBe(200);
  });

  it('the API key never appears in an error', async () => {
    sb.addFault({
      operation: 'other',
      fault: { type: 'status', status: 502, body: { echoed: `Bearer ${sb.apiKey}` } },
    });
    const err = (await caught(video.responses({ model: 'm' }))) as ServiceError;
    expect(JSON.stringify({ m: err.message, b: err.responseBody })).not.toContain(sb.apiKey);
  });
});

describe('vendor B query path (not in the spec)', () => {
  it('is configurable: the configured path is the one called', async () => {
    const custom = new VideoClient(cfg({ gateway: { vendorBQueryPath: '/video-b/ent/v2/text2video/{task_id}' } }));
    try {
      const err = await caught(custom.getVendorBTask('t 1'));
      expect((err as ServiceError).status).toBe(404); // the sandbox serves the default path only
      expect(onlyRequest().path).toBe('/video-b/ent/v2/text2video/t%201');
    } finally {
      await custom.close();
    }
  });

  it('false = create only: the query is refused before sending; a bad template is refused at construction', async () => {
    const createOnly = new VideoClient(cfg({ gateway: { vendorBQueryPath: false } }));
    try {
      expect(createOnly.gatewayPath('vendorBTaskGet')).toBeUndefined();
      expect(await caught(createOnly.getVendorBTask('t1'))).toBeInstanceOf(RequestValidationError);
      expect(sb.requests()).toHaveLength(0);
    } finally {
      await createOnly.close();
    }
    for (const bad of ['no-slash/{task_id}', '/x/{id}', '/x/{task_id}/{model}']) {
      expect(() => new VideoClient(cfg({ gateway: { vendorBQueryPath: bad } }))).toThrow(TypeError);
    }
  });
});

describe('the sandbox side', () => {
  it('refuses review headers and a wrong method on a gateway path', async () => {
    const withReview = await fetch(`${sb.videoBaseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${sb.apiKey}`,
        'x-access-token': 't',
        'x-track-id': 'a'.repeat(32),
        'content-type': 'application/json',
      },
      body: JSON.stringify(chat),
    });
    expect(withReview.status).toBe(401);
    const wrongMethod = await fetch(`${sb.videoBaseUrl}/v1/chat/completions`, {
      headers: { authorization: `Bearer ${sb.apiKey}` },
    });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('POST');
  });

  it('serves the result file of a finished task without auth', async () => {
    const { task_id } = (await video.createVideoGeneration({ model: 'video-model-1', prompt: 'a kite' })).body as {
      task_id: string;
    };
    let url: string | undefined;
    for (let i = 0; i < 200 && !url; i++) {
      await new Promise((r) => setTimeout(r, 20));
      url = ((await video.getVideoGeneration(task_id)).body as { url?: string }).url;
    }
    expect(url).toBe(`${sb.videoBaseUrl}/gateway-files/${task_id}.mp4`);
    const file = await fetch(url!);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('video/mp4');
    // Logged as a public download: the audit does not ask it for a key.
    expect(sb.requests().at(-1)).toMatchObject({ gateway: 'file', status: 200 });
    expect(auditRequestLog(sb.requests(), { minQueryIntervalMs: 0 })).toEqual([]);
  });
});
