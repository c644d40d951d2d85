// Issue 37, client defects 6 and 7: the bodies OpenAI's own clients send. `/v1/videos` takes multipart
// with an `input_reference` file (openai@6 videos.create sends multipart), images edits take several
// `image[]` parts, and the JSON form of an edit in OpenAI's published API description is
// `images: [{ image_url }]`. Client and sandbox now agree with those, not only with each other.
import { FormData } from 'undici';
import { describe, expect, it } from 'vitest';
import { withSandbox } from '../support/sandbox.js';
import { RequestValidationError } from '../../src/model/validation.js';

// The sandbox in this process and our video client on it, reset before each test.
const ctx = withSandbox({ videoDurationMs: 200, timeoutMs: 5_000 });

const png = () => new Blob([new Uint8Array([137, 80, 78, 71])], { type: 'image/png' });

describe('/v1/videos as multipart (defect 6)', () => {
  it('a create with an input_reference file is sent as multipart and makes one task', async () => {
    const form = new FormData();
    form.append('model', 'sora-2');
    form.append('prompt', 'the kite takes off');
    form.append('seconds', '4');
    form.append('input_reference', png(), 'first-frame.png');
    const res = await ctx.video.createVideo(form, { checkWellKnown: true });
    expect(res.body).toMatchObject({ object: 'video', status: 'queued', model: 'sora-2' });
    const [entry] = ctx.sandbox.requests();
    expect(entry!.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    expect(ctx.sandbox.videoTasks()).toHaveLength(1);
  });

  it('the well-known check of a multipart create names a missing prompt', async () => {
    const form = new FormData();
    form.append('model', 'sora-2');
    await expect(ctx.video.createVideo(form, { checkWellKnown: true })).rejects.toBeInstanceOf(RequestValidationError);
    expect(ctx.sandbox.requests()).toHaveLength(0);
  });
});

describe('images edits (defect 7)', () => {
  it('several images as image[] parts', async () => {
    const form = new FormData();
    form.append('model', 'gpt-image-1');
    form.append('prompt', 'put them in one basket');
    form.append('image[]', png(), 'a.png');
    form.append('image[]', png(), 'b.png');
    const res = await ctx.video.imagesEdits(form, { checkWellKnown: true });
    expect((res.body as { data: unknown[] }).data).toHaveLength(1);
  });

  it("OpenAI's JSON edit body, images: [{ image_url }]", async () => {
    const body = {
      model: 'gpt-image-1',
      prompt: 'make it blue',
      images: [{ image_url: 'https://example.com/kite.png' }],
    };
    const res = await ctx.video.imagesEdits(body, { checkWellKnown: true });
    expect((res.body as { data: unknown[] }).data).toHaveLength(1);
  });

  it('a JSON edit with neither image nor images is refused by the check, and by the service', async () => {
    const err = await ctx.video.imagesEdits({ prompt: 'make it blue' }, { checkWellKnown: true }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(RequestValidationError);
    expect(ctx.sandbox.requests()).toHaveLength(0);
    await expect(ctx.video.imagesEdits({ prompt: 'make it blue', images: [] })).rejects.toMatchObject({ status: 400 });
  });
});
