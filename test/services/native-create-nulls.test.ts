// Issue 37, client defect 8: the Ark runtime SDK (BytePlus ModelArk, whose content-generation task body
// the native create is field for field) sends every option it was not given as `null`, so the real
// service must read `null` as "unset". The client refused such a body before sending; now an explicit
// null is an unset option (dropped before sending), while a null required field is still reported.
import { describe, expect, it } from 'vitest';
import { withSandbox } from '../support/sandbox.js';
import { RequestValidationError } from '../../src/model/validation.js';

// The sandbox in this process and our video client on it, reset before each test.
const ctx = withSandbox({ videoDurationMs: 200, timeoutMs: 5_000 });

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
    const { id } = await ctx.video.createTask(body as never);
    expect(id).toEqual(expect.any(String));
    const sent = ctx.sandbox.requests().filter((r) => r.method === 'POST' && r.path === '/v1/task/create');
    expect(sent).toHaveLength(1);
    expect(sent[0]!.body).toEqual({ model: 'video-model-1', content: [{ type: 'text', text: 'a red kite' }] });
  });

  it('a null required field is still refused before sending, as missing', async () => {
    const err = await ctx.video.createTask({ model: null, content: null, ...arkNulls } as never).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(RequestValidationError);
    expect((err as RequestValidationError).issues.map((i) => i.field).sort()).toEqual(['content', 'model']);
    expect(ctx.sandbox.requests()).toHaveLength(0);
  });
});
