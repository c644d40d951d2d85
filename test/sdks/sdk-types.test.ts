// The sandbox's Anthropic and Gemini bodies against the official SDKs' types (issue 37), and every family's
// error envelope. Each zod schema lists the fields the SDK type declares non-optional; `expectTypeOf(...)
// .toExtend<SdkType>()` makes tsc (`npm test` type-checks first) refuse a schema that omits one or types
// one wider than the SDK, so a body the schema accepts is one the SDK's type describes. The bodies are
// read raw over HTTP, as the sandbox sent them, streamed events included.
import type Anthropic from '@anthropic-ai/sdk';
import { FinishReason, type GenerateContentResponse } from '@google/genai';
import type OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { startSandbox, type Sandbox } from 'temporal-review-video-sandbox';

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(async () => {
  await sb?.close();
});
beforeEach(() => sb.reset());

async function post(path: string, body: unknown, key = sb.apiKey): Promise<{ status: number; text: string }> {
  const res = await fetch(`${sb.videoBaseUrl}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, text: await res.text() };
}

/** The `data:` payloads of an event stream. */
const sseData = (text: string): unknown[] =>
  text
    .split('\n')
    .filter((l) => l.startsWith('data: '))
    .map((l) => JSON.parse(l.slice('data: '.length)) as unknown);

/** Parses `value`, failing with every issue the schema found. */
function conforms(schema: z.ZodType, value: unknown): void {
  const result = schema.safeParse(value);
  expect(result.success ? [] : result.error.issues).toEqual([]);
}

// Anthropic: the Message and RawMessageStreamEvent types of @anthropic-ai/sdk.
const textBlock = z.object({ type: z.literal('text'), text: z.string(), citations: z.null() });
const usage = z.object({
  cache_creation: z.null(),
  cache_creation_input_tokens: z.number().nullable(),
  cache_read_input_tokens: z.number().nullable(),
  inference_geo: z.string().nullable(),
  input_tokens: z.number(),
  output_tokens: z.number(),
  output_tokens_details: z.null(),
  server_tool_use: z.null(),
  service_tier: z.enum(['standard', 'priority', 'batch']).nullable(),
  speed: z.enum(['standard', 'fast']).nullable(),
});
const stopReason = z.enum(['end_turn', 'max_tokens', 'stop_sequence', 'tool_use', 'pause_turn', 'refusal']);
const message = z.object({
  id: z.string(),
  type: z.literal('message'),
  role: z.literal('assistant'),
  container: z.null(),
  content: z.array(textBlock),
  diagnostics: z.null(),
  model: z.string(),
  stop_details: z.null(),
  stop_reason: stopReason.nullable(),
  stop_sequence: z.string().nullable(),
  usage,
});
const deltaUsage = z.object({
  cache_creation_input_tokens: z.number().nullable(),
  cache_read_input_tokens: z.number().nullable(),
  input_tokens: z.number().nullable(),
  output_tokens: z.number(),
  output_tokens_details: z.null(),
  server_tool_use: z.null(),
});
const streamEvent = z.discriminatedUnion('type', [
  z.object({ type: z.literal('message_start'), message }),
  z.object({ type: z.literal('content_block_start'), index: z.number(), content_block: textBlock }),
  z.object({
    type: z.literal('content_block_delta'),
    index: z.number(),
    delta: z.object({ type: z.literal('text_delta'), text: z.string() }),
  }),
  z.object({ type: z.literal('content_block_stop'), index: z.number() }),
  z.object({
    type: z.literal('message_delta'),
    delta: z.object({
      container: z.null(),
      stop_details: z.null(),
      stop_reason: stopReason.nullable(),
      stop_sequence: z.string().nullable(),
    }),
    usage: deltaUsage,
  }),
  z.object({ type: z.literal('message_stop') }),
]);
const anthropicError = z.object({
  type: z.literal('error'),
  error: z.object({
    type: z.enum([
      'invalid_request_error',
      'authentication_error',
      'rate_limit_error',
      'api_error',
      'overloaded_error',
    ]),
    message: z.string(),
  }),
  request_id: z.string().nullable(),
});

// Gemini: GenerateContentResponse's data fields (all optional in @google/genai; typed where present).
const generateContentResponse = z.object({
  candidates: z.array(
    z.object({
      content: z.object({ role: z.string(), parts: z.array(z.object({ text: z.string() })) }),
      finishReason: z.enum(FinishReason).optional(),
      index: z.number(),
    }),
  ),
  usageMetadata: z
    .object({ promptTokenCount: z.number(), candidatesTokenCount: z.number(), totalTokenCount: z.number() })
    .optional(),
  modelVersion: z.string(),
  responseId: z.string(),
});
// google.rpc.Status, as the Gemini API answers errors (the SDK reads `code` and `status`, no type of its own).
const googleError = z.object({ error: z.object({ code: z.number().int(), message: z.string(), status: z.string() }) });
// OpenAI's ErrorObject, under `error`.
const openaiError = z.object({
  error: z.object({ code: z.string().nullable(), message: z.string(), param: z.string().nullable(), type: z.string() }),
});

describe('schemas are at least as strict as the SDK types (checked by tsc)', () => {
  it('compiles', () => {
    expectTypeOf<z.infer<typeof message>>().toExtend<Anthropic.Message>();
    expectTypeOf<z.infer<typeof streamEvent>>().toExtend<Anthropic.RawMessageStreamEvent>();
    expectTypeOf<z.infer<typeof anthropicError>>().toExtend<Anthropic.ErrorResponse>();
    type GenerateContentData = Pick<
      GenerateContentResponse,
      'candidates' | 'usageMetadata' | 'modelVersion' | 'responseId'
    >;
    expectTypeOf<z.infer<typeof generateContentResponse>>().toExtend<GenerateContentData>();
    expectTypeOf<z.infer<typeof openaiError>['error']>().toExtend<OpenAI.ErrorObject>();
    expect(message.shape.usage).toBe(usage);
  });
});

describe('anthropic bodies', () => {
  const body = { model: 'claude-x', max_tokens: 32, messages: [{ role: 'user', content: 'types' }] };

  it('messages: a Message', async () => {
    const r = await post('/v1/messages', body);
    expect(r.status).toBe(200);
    conforms(message, JSON.parse(r.text));
  });

  it('messages stream: every event a RawMessageStreamEvent', async () => {
    const r = await post('/v1/messages', { ...body, stream: true });
    const events = sseData(r.text);
    expect(events.length).toBeGreaterThanOrEqual(6);
    for (const e of events) conforms(streamEvent, e);
  });

  it('errors: an ErrorResponse on 400, 401 and 429, and mid-stream', async () => {
    conforms(anthropicError, JSON.parse((await post('/v1/messages', { ...body, max_tokens: 0 })).text));
    conforms(anthropicError, JSON.parse((await post('/v1/messages', body, 'wrong')).text));
    sb.addFault({ operation: 'other', match: { model: 'claude-busy' }, fault: { type: 'status', status: 429 } });
    conforms(anthropicError, JSON.parse((await post('/v1/messages', { ...body, model: 'claude-busy' })).text));
    sb.addFault({ operation: 'other', match: { model: 'claude-cut' }, fault: { type: 'streamError', status: 529 } });
    const cut = sseData((await post('/v1/messages', { ...body, model: 'claude-cut', stream: true })).text);
    conforms(anthropicError, cut.at(-1));
  });
});

describe('gemini bodies', () => {
  const body = { contents: [{ role: 'user', parts: [{ text: 'types' }] }] };

  it('generateContent: a GenerateContentResponse', async () => {
    const r = await post('/v1beta/models/gemini-2.5-flash:generateContent', body);
    expect(r.status).toBe(200);
    conforms(generateContentResponse, JSON.parse(r.text));
  });

  it('streamGenerateContent: every chunk a GenerateContentResponse', async () => {
    const r = await post('/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse', body);
    const chunks = sseData(r.text);
    expect(chunks.length).toBeGreaterThanOrEqual(2);
    for (const c of chunks) conforms(generateContentResponse, c);
  });

  it('errors: google.rpc.Status on 400, 401 and 429', async () => {
    const path = '/v1beta/models/gemini-2.5-flash:generateContent';
    conforms(googleError, JSON.parse((await post(path, { contents: [{ role: 'user', parts: [] }] })).text));
    conforms(googleError, JSON.parse((await post(path, body, 'wrong')).text));
    sb.addFault({ operation: 'other', match: { url: 'gemini-busy' }, fault: { type: 'status', status: 429 } });
    conforms(googleError, JSON.parse((await post(path, { contents: 'gemini-busy' })).text));
  });
});

describe('openai error envelope', () => {
  it('an ErrorObject on 400, 401 and 429, and mid-stream in a chat stream', async () => {
    const chat = { model: 'gpt-x', messages: [{ role: 'user', content: 'x' }] };
    conforms(openaiError, JSON.parse((await post('/v1/chat/completions', { ...chat, messages: [] })).text));
    conforms(openaiError, JSON.parse((await post('/v1/chat/completions', chat, 'wrong')).text));
    sb.addFault({ operation: 'other', match: { model: 'gpt-busy' }, fault: { type: 'status', status: 429 } });
    conforms(openaiError, JSON.parse((await post('/v1/responses', { model: 'gpt-busy', input: 'x' })).text));
    sb.addFault({ operation: 'other', match: { model: 'gpt-cut' }, fault: { type: 'streamError' } });
    const cut = sseData((await post('/v1/chat/completions', { ...chat, model: 'gpt-cut', stream: true })).text);
    conforms(openaiError, cut.at(-1));
  });
});
