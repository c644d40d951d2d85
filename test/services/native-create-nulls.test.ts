// Issue 37, client defect 8: the Ark runtime SDK (BytePlus ModelArk, whose content-generation task body
// the native create is field for field) sends every option it was not given as `null`, so the real
// service must read `null` as "unset". The client refused such a body before sending; now an explicit
// null is an unset option (dropped before sending), while a null required field is still reported.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { RequestValidationError } from '../../src/model/validation.js';
import { VideoClient } from '../../src/services/video/client.js';

let sb: Sandbox;
let video: VideoClient;

beforeAll(async () => {
  sb = await startSandbox({ videoDurationMs: 200 });
  video = new VideoClient({
    baseUrl: sb.videoBaseUrl,
    apiKey: sb.apiKey,
    cancelMethod: 'POST',
    cancelPath: '/v1/task/cancel/{id}',
    timeoutMs: 5_000,
  });
});
afterAll(async () => {
  await video?.close();
  await sb?.close();
});
beforeEach(() => sb.reset());

// What the Ark SDK's tasks.create(model, content) puts on the wire for the options it was not given.
const arkNulls = {
  callback_url: null,
  return_last_frame: null,
  service_tier: null,
  execution_expires_after: null,
  generate_audio: null,
  ratio: null,
  duration: null,
  resolution: null,
  watermark: null,
  seed: null,
};

describe('explicit nulls in a native create body', () => {
  it('are unset options: the create is sent, without them', async () => {
    const body = {
      model: 'video-model-1',
      content: [{ type: 'text' as const, text: 'a red kite', role: null }],
      ...arkNulls,
    };
    const { id } = await video.createTask(body as never);
    expect(id).toEqual(expect.any(String));
    const sent = sb.requests().filter((r) => r.method === 'POST' && r.path === '/v1/task/create');
    expect(sent).toHaveLength(1);
    expect(sent[0]!.body).toEqual({ model: 'video-model-1', content: [{ type: 'text', text: 'a red kite' }] });
  });

  it('a null required field is still refused before sending, as missing', async () => {
    const err = await video.createTask({ model: null, content: null, ...arkNulls } as never).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(RequestValidationError);
    expect((err as RequestValidationError).issues.map((i) => i.field).sort()).toEqual(['content', 'model']);
    expect(sb.requests()).toHaveLength(0);
  });
});
