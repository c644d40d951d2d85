// The official SDKs as test clients of the sandbox (issue 37): each SDK, pointed at the sandbox over real
// HTTP with the spec's bearer key, makes its family's calls and parses the answers through its own code
// (streaming included), and reads each family's error envelope with its own error classes. The spec's
// auth overrides the families' defaults: Anthropic gets `authToken` (Bearer), Gemini a bearer header
// through `httpOptions.headers` (docs/entry-points.md).
import Anthropic from '@anthropic-ai/sdk';
import { ApiError, GoogleGenAI } from '@google/genai';
import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from 'temporal-review-video-sandbox';

type AnthropicError = InstanceType<typeof Anthropic.APIError>;

let sb: Sandbox;
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=',
  'base64',
);

const openai = (apiKey = sb.apiKey) => new OpenAI({ apiKey, baseURL: `${sb.videoBaseUrl}/v1`, maxRetries: 0 });
const anthropic = (key = sb.apiKey) =>
  new Anthropic({ apiKey: null, authToken: key, baseURL: sb.videoBaseUrl, maxRetries: 0 });
const gemini = (key = sb.apiKey) =>
  new GoogleGenAI({
    apiKey: 'not-used-the-spec-wants-bearer',
    httpOptions: { baseUrl: sb.videoBaseUrl, headers: { Authorization: `Bearer ${key}` } },
  });

async function caught(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => {
      throw new Error('expected the call to throw');
    },
    (e: unknown) => e,
  );
}

beforeAll(async () => {
  sb = await startSandbox({ videoDurationMs: 100 });
});
afterAll(async () => {
  await sb?.close();
});
beforeEach(() => sb.reset());

describe('openai', () => {
  it('chat.completions.create: a completion with the published required fields', async () => {
    const c = await openai().chat.completions.create({ model: 'gpt-x', messages: [{ role: 'user', content: 'hi' }] });
    const choice = c.choices[0]!;
    expect(choice.message.content).toMatch(/hi/);
    expect(choice.message.refusal).toBeNull();
    expect(choice.logprobs).toBeNull();
    expect(c.usage?.prompt_tokens_details?.cached_tokens).toBe(0);
    expect(c.usage?.completion_tokens_details?.reasoning_tokens).toBe(0);
  });

  it('chat.completions.create stream: chunks then [DONE]', async () => {
    const stream = await openai().chat.completions.create({
      model: 'gpt-x',
      messages: [{ role: 'user', content: 'stream me' }],
      stream: true,
    });
    const chunks: OpenAI.Chat.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.length).toBeGreaterThanOrEqual(2);
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toMatch(/stream me/);
    expect(chunks.at(-1)!.choices[0]!.finish_reason).toBe('stop');
  });

  it('responses.create: output_text', async () => {
    const r = await openai().responses.create({ model: 'gpt-x', input: 'hello there' });
    expect(r.status).toBe('completed');
    expect(r.output_text).toMatch(/hello there/);
    expect(r.error).toBeNull();
    expect(r.usage?.output_tokens_details.reasoning_tokens).toBe(0);
  });

  it('responses.create stream: typed events, response.created ... response.completed', async () => {
    const stream = await openai().responses.create({ model: 'gpt-x', input: 'typed events', stream: true });
    const types: string[] = [];
    let final: OpenAI.Responses.Response | undefined;
    let text = '';
    for await (const ev of stream) {
      types.push(ev.type);
      if (ev.type === 'response.output_text.delta') text += ev.delta;
      if (ev.type === 'response.completed') final = ev.response;
    }
    expect(types[0]).toBe('response.created');
    expect(types.at(-1)).toBe('response.completed');
    expect(text).toMatch(/typed events/);
    expect(final?.status).toBe('completed');
  });

  it('images.generate: the returned URL resolves to an image', async () => {
    const r = await openai().images.generate({ model: 'gpt-image-1', prompt: 'a kite' });
    const url = r.data?.[0]?.url;
    expect(url).toBeDefined();
    const file = await fetch(url!);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('image/png');
    expect((await file.arrayBuffer()).byteLength).toBeGreaterThan(0);
  });

  it('images.edit: several images as multipart image[] parts, and the URL resolves', async () => {
    const r = await openai().images.edit({
      model: 'gpt-image-1',
      prompt: 'merge them',
      image: [await toFile(PNG, 'a.png', { type: 'image/png' }), await toFile(PNG, 'b.png', { type: 'image/png' })],
    });
    const edit = sb.requests().find((e) => e.path === '/v1/images/edits')!;
    expect(String(edit.body)).toContain('name="image[]"');
    expect((await fetch(r.data![0]!.url!)).status).toBe(200);
  });

  it('images edits, JSON form of the OpenAPI description (images: [{ image_url }])', async () => {
    const r = await openai().post<OpenAI.Images.ImagesResponse>('/images/edits', {
      body: { model: 'gpt-image-1', prompt: 'edit', images: [{ image_url: 'https://example.com/a.png' }] },
    });
    expect(r.data?.[0]?.url).toMatch(/^http/);
  });

  it('videos.create (multipart), videos.retrieve until completed, videos.downloadContent', async () => {
    const client = openai();
    const created = await client.videos.create({
      model: 'sora-2',
      prompt: 'a red kite',
      input_reference: await toFile(PNG, 'ref.png', { type: 'image/png' }),
    });
    expect(sb.requests()[0]!.headers['content-type']).toMatch(/^multipart\/form-data/);
    expect(created.expires_at).toBeNull();
    expect(created.error).toBeNull();
    let video = created;
    for (let i = 0; i < 50 && video.status !== 'completed'; i++) {
      await new Promise((r) => setTimeout(r, 20));
      video = await client.videos.retrieve(created.id);
    }
    expect(video.status).toBe('completed');
    expect(typeof video.expires_at).toBe('number');
    const content = await client.videos.downloadContent(created.id);
    expect(content.headers.get('content-type')).toBe('video/mp4');
    expect((await content.arrayBuffer()).byteLength).toBeGreaterThan(0);
  });

  it('errors: APIError with type, param and code on 400, 401 and 429', async () => {
    const bad = await caught(openai().chat.completions.create({ model: 'gpt-x', messages: [] }));
    expect(bad).toBeInstanceOf(OpenAI.BadRequestError);
    expect(bad).toMatchObject({ status: 400, type: 'invalid_request_error', param: 'messages' });

    const noKey = await caught(openai('wrong').responses.create({ model: 'gpt-x', input: 'x' }));
    expect(noKey).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(noKey).toMatchObject({ status: 401, type: 'invalid_request_error', code: 'invalid_api_key' });

    sb.addFault({ operation: 'other', match: { model: 'gpt-busy' }, fault: { type: 'status', status: 429 } });
    const busy = await caught(openai().responses.create({ model: 'gpt-busy', input: 'x' }));
    expect(busy).toBeInstanceOf(OpenAI.RateLimitError);
    expect(busy).toMatchObject({ status: 429, type: 'requests', code: 'rate_limit_exceeded' });
  });
});

describe('anthropic', () => {
  const body = { model: 'claude-x', max_tokens: 64, messages: [{ role: 'user' as const, content: 'bonjour' }] };

  it('messages.create: a message with text', async () => {
    const m = await anthropic().messages.create(body);
    const first = m.content[0];
    expect(first?.type === 'text' && first.text).toMatch(/bonjour/);
    expect(m.stop_sequence).toBeNull();
    expect(sb.requests()[0]!.headers.authorization).toBe(`Bearer ${sb.apiKey}`);
  });

  it('messages.stream: message_start ... message_stop and a final message', async () => {
    const stream = anthropic().messages.stream(body);
    const events: string[] = [];
    stream.on('streamEvent', (e) => events.push(e.type));
    const final = await stream.finalMessage();
    expect(events[0]).toBe('message_start');
    expect(events).toContain('content_block_delta');
    expect(events.at(-1)).toBe('message_stop');
    const first = final.content[0];
    expect(first?.type === 'text' && first.text).toMatch(/bonjour/);
    expect(final.stop_reason).toBe('end_turn');
  });

  it('errors: {type:"error", error:{type,message}} on 400, 401 and 429', async () => {
    const bad = await caught(anthropic().messages.create({ ...body, max_tokens: 0 }));
    expect(bad).toBeInstanceOf(Anthropic.BadRequestError);
    expect((bad as AnthropicError).error).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error' },
    });

    const noKey = await caught(anthropic('wrong').messages.create(body));
    expect(noKey).toBeInstanceOf(Anthropic.AuthenticationError);
    expect((noKey as AnthropicError).error).toMatchObject({ error: { type: 'authentication_error' } });

    sb.addFault({ operation: 'other', match: { model: 'claude-busy' }, fault: { type: 'status', status: 429 } });
    const busy = await caught(anthropic().messages.create({ ...body, model: 'claude-busy' }));
    expect(busy).toBeInstanceOf(Anthropic.RateLimitError);
    expect((busy as AnthropicError).error).toMatchObject({ type: 'error', error: { type: 'rate_limit_error' } });
  });
});

describe('google genai', () => {
  it('models.generateContent: text, sent with the bearer header', async () => {
    const r = await gemini().models.generateContent({ model: 'gemini-2.5-flash', contents: 'guten tag' });
    expect(r.text).toMatch(/guten tag/);
    expect(sb.requests()[0]!.headers.authorization).toBe(`Bearer ${sb.apiKey}`);
  });

  it('models.generateContentStream: streamGenerateContent?alt=sse chunks', async () => {
    const stream = await gemini().models.generateContentStream({ model: 'gemini-2.5-flash', contents: 'stream it' });
    const texts: string[] = [];
    for await (const chunk of stream) texts.push(chunk.text ?? '');
    expect(texts.length).toBeGreaterThanOrEqual(2);
    expect(texts.join('')).toMatch(/stream it/);
    expect(sb.requests()[0]!.path).toBe('/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
  });

  it('errors: {error:{code:<int>,message,status}} on 400, 401 and 429', async () => {
    const envelope = (e: unknown) => {
      expect(e).toBeInstanceOf(ApiError);
      return JSON.parse((e as ApiError).message) as { error: { code: unknown; status: unknown; message: unknown } };
    };
    const bad = await caught(
      gemini().models.generateContent({ model: 'gemini-2.5-flash', contents: [{ role: 'user', parts: [] }] }),
    );
    expect((bad as ApiError).status).toBe(400);
    expect(envelope(bad).error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT', message: expect.any(String) });

    const noKey = await caught(gemini('wrong').models.generateContent({ model: 'gemini-2.5-flash', contents: 'x' }));
    expect(envelope(noKey).error).toMatchObject({ code: 401, status: 'UNAUTHENTICATED' });

    sb.addFault({ operation: 'other', match: { url: 'gemini-busy' }, fault: { type: 'status', status: 429 } });
    const busy = await caught(gemini().models.generateContent({ model: 'gemini-2.5-flash', contents: 'gemini-busy' }));
    expect(envelope(busy).error).toMatchObject({ code: 429, status: 'RESOURCE_EXHAUSTED' });
  });
});

describe('ModelArk native create', () => {
  it('accepts the explicit nulls the Ark SDK sends for unset options', async () => {
    const res = await fetch(`${sb.videoBaseUrl}/v1/task/create`, {
      method: 'POST',
      headers: { authorization: `Bearer ${sb.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'seedance-1',
        content: [{ type: 'text', text: 'a kite', image_url: null, role: null }],
        callback_url: null,
        ratio: null,
        duration: null,
        seed: null,
        watermark: null,
      }),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { id?: unknown }).id).toEqual(expect.any(String));
  });
});

// A stream that fails after some events (sandbox fault `streamError`): each SDK raises it, in its family's
// mid-stream error shape, after the events that came; never a silently short answer.
describe('mid-stream errors', () => {
  const failAfter = (match: { model?: string; url?: string }, status = 500) =>
    sb.addFault({ operation: 'other', match, fault: { type: 'streamError', afterEvents: 2, status } });

  it('openai chat stream: an APIError after the chunks that came', async () => {
    failAfter({ model: 'gpt-cut' });
    const stream = await openai().chat.completions.create({
      model: 'gpt-cut',
      messages: [{ role: 'user', content: 'cut me' }],
      stream: true,
    });
    const chunks: unknown[] = [];
    const err = await caught(
      (async () => {
        for await (const chunk of stream) chunks.push(chunk);
      })(),
    );
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect(err).toMatchObject({ type: 'server_error', code: 'http_500' });
    expect(chunks).toHaveLength(2);
  });

  it('openai responses stream: the typed error event, and no response.completed', async () => {
    failAfter({ model: 'gpt-cut' });
    const stream = await openai().responses.create({ model: 'gpt-cut', input: 'cut me', stream: true });
    const events: OpenAI.Responses.ResponseStreamEvent[] = [];
    for await (const ev of stream) events.push(ev);
    expect(events.map((e) => e.type)).toEqual(['response.created', 'response.in_progress', 'error']);
    expect(events[2]).toMatchObject({ type: 'error', code: 'http_500', sequence_number: 2 });
  });

  it('anthropic messages.stream: finalMessage rejects with the overloaded_error', async () => {
    failAfter({ model: 'claude-cut' }, 529);
    const stream = anthropic().messages.stream({
      model: 'claude-cut',
      max_tokens: 64,
      messages: [{ role: 'user', content: 'cut me' }],
    });
    const events: string[] = [];
    stream.on('streamEvent', (e) => events.push(e.type));
    const err = await caught(stream.finalMessage());
    expect(err).toBeInstanceOf(Anthropic.APIError);
    expect((err as AnthropicError).error).toMatchObject({ type: 'error', error: { type: 'overloaded_error' } });
    expect(events).toEqual(['message_start', 'content_block_start']);
  });

  it('google genai generateContentStream: an ApiError with the status', async () => {
    failAfter({ url: 'gemini-cut' }, 503);
    const stream = await gemini().models.generateContentStream({ model: 'gemini-2.5-flash', contents: 'gemini-cut' });
    const texts: string[] = [];
    const err = await caught(
      (async () => {
        for await (const chunk of stream) texts.push(chunk.text ?? '');
      })(),
    );
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(503);
    expect(texts).toHaveLength(2);
  });
});
