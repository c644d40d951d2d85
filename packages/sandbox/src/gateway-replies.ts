// Synchronous gateway entry points of the video service (text: chat completions, responses,
// generateContent, messages; image: generations, edits, the two generate-content image models): the
// sandbox's own minimal reading of each request, and a plausible answer in the shape of the public API of
// the same path. The spec shows neither; only the fields every such request needs are checked.
import { randomHex } from './context.js';
import type { Issue } from './validation.js';

export type GatewaySyncKind =
  | 'chatCompletions'
  | 'responses'
  | 'generateContent'
  | 'messages'
  | 'imagesGenerations'
  | 'imagesEdits'
  | 'imageGenerateContent';

/** A 1x1 transparent PNG: what the image models "draw" (and what their URLs serve). */
export const PIXEL_PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';

const isText = (v: unknown) => typeof v === 'string' && v.trim() !== '';
const isList = (v: unknown) => Array.isArray(v) && v.length > 0;

/** What each request needs, as (field, test, rule) rows. */
const REQUIRED: Record<GatewaySyncKind, Array<[string, (b: Record<string, unknown>) => boolean, string]>> = {
  chatCompletions: [
    ['model', (b) => isText(b.model), 'is required (a model name)'],
    ['messages', (b) => isList(b.messages), 'is required (a non-empty array of messages)'],
  ],
  responses: [['model', (b) => isText(b.model), 'is required (a model name)']],
  generateContent: [
    ['contents', (b) => isList(b.contents), 'is required (a non-empty array of contents)'],
    [
      'contents.parts',
      (b) => !Array.isArray(b.contents) || b.contents.every((c) => isList((c as { parts?: unknown } | null)?.parts)),
      'must not be empty (each content needs parts)',
    ],
  ],
  imageGenerateContent: [['contents', (b) => isList(b.contents), 'is required (a non-empty array of contents)']],
  messages: [
    ['model', (b) => isText(b.model), 'is required (a model name)'],
    ['max_tokens', (b) => typeof b.max_tokens === 'number' && b.max_tokens > 0, 'is required (a positive number)'],
    ['messages', (b) => isList(b.messages), 'is required (a non-empty array of messages)'],
  ],
  imagesGenerations: [['prompt', (b) => isText(b.prompt), 'is required (the image description)']],
  imagesEdits: [
    ['prompt', (b) => isText(b.prompt), 'is required (the edit instruction)'],
    // `image` (JSON or a part), several `image[]` parts, or OpenAI's JSON `images: [{ image_url }]`.
    [
      'image',
      (b) => [b.image, b['image[]']].some((v) => v !== undefined && v !== '' && v !== null) || isList(b.images),
      'is required (the image to edit: image, image[] or images)',
    ],
  ],
};

export function checkSyncBody(kind: GatewaySyncKind, body: Record<string, unknown>): Issue[] {
  return REQUIRED[kind].filter(([, ok]) => !ok(body)).map(([field, , rule]) => ({ field, rule }));
}

/** The text of the last user turn, in any of the request shapes, for a recognisable echo. */
function lastUserText(body: Record<string, unknown>): string {
  const pick = (v: unknown): string | undefined => {
    if (typeof v === 'string') return v;
    if (Array.isArray(v)) return v.map(pick).filter(Boolean).join(' ') || undefined;
    if (v && typeof v === 'object') {
      const o = v as Record<string, unknown>;
      return pick(o.text ?? o.content ?? o.parts ?? o.input);
    }
    return undefined;
  };
  const turns = (body.messages ?? body.contents ?? body.input) as unknown;
  const last = Array.isArray(turns) ? turns[turns.length - 1] : turns;
  return (pick(last) ?? '').slice(0, 200);
}

export function syncReply(
  kind: GatewaySyncKind,
  body: Record<string, unknown>,
  model: string | undefined,
  imageUrl: () => string,
): unknown {
  const echo = `sandbox reply to: ${lastUserText(body)}`;
  const now = Math.floor(Date.now() / 1000);
  const usage = { input_tokens: 12, output_tokens: 8 };
  switch (kind) {
    case 'chatCompletions':
      return {
        id: `chatcmpl-${randomHex(12)}`,
        object: 'chat.completion',
        created: now,
        model: body.model,
        // The published schema's required (nullable) fields: logprobs, refusal, the usage details.
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: echo, refusal: null, annotations: [] },
            logprobs: null,
            finish_reason: 'stop',
          },
        ],
        usage: {
          prompt_tokens: 12,
          completion_tokens: 8,
          total_tokens: 20,
          prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
          completion_tokens_details: {
            reasoning_tokens: 0,
            audio_tokens: 0,
            accepted_prediction_tokens: 0,
            rejected_prediction_tokens: 0,
          },
        },
        service_tier: 'default',
        system_fingerprint: 'fp_sandbox',
      };
    case 'responses':
      return {
        id: `resp_${randomHex(12)}`,
        object: 'response',
        created_at: now,
        status: 'completed',
        error: null,
        incomplete_details: null,
        instructions: typeof body.instructions === 'string' ? body.instructions : null,
        metadata: {},
        parallel_tool_calls: true,
        temperature: 1,
        tool_choice: 'auto',
        tools: [],
        top_p: 1,
        model: body.model,
        output: [
          {
            type: 'message',
            id: `msg_${randomHex(8)}`,
            status: 'completed',
            role: 'assistant',
            content: [{ type: 'output_text', text: echo, annotations: [], logprobs: [] }],
          },
        ],
        usage: {
          ...usage,
          input_tokens_details: { cached_tokens: 0 },
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: 20,
        },
      };
    case 'messages':
      return {
        id: `msg_${randomHex(12)}`,
        type: 'message',
        role: 'assistant',
        model: body.model,
        // Every field @anthropic-ai/sdk's Message declares non-optional, nullable ones as null
        // (test/sdks/sdk-types.test.ts).
        container: null,
        content: [{ type: 'text', text: echo, citations: null }],
        diagnostics: null,
        stop_details: null,
        stop_reason: 'end_turn',
        stop_sequence: null,
        usage: {
          ...usage,
          cache_creation: null,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
          inference_geo: null,
          output_tokens_details: null,
          server_tool_use: null,
          service_tier: 'standard',
          speed: null,
        },
      };
    case 'generateContent':
    case 'imageGenerateContent': {
      const parts =
        kind === 'imageGenerateContent'
          ? [{ text: 'Here is the image.' }, { inlineData: { mimeType: 'image/png', data: PIXEL_PNG } }]
          : [{ text: echo }];
      return {
        candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
        usageMetadata: { promptTokenCount: 12, candidatesTokenCount: 8, totalTokenCount: 20 },
        modelVersion: model,
        responseId: randomHex(10),
      };
    }
    case 'imagesGenerations':
    case 'imagesEdits': {
      const n = typeof body.n === 'number' && body.n > 0 ? Math.min(Math.floor(body.n), 4) : 1;
      const b64 = body.response_format === 'b64_json';
      return {
        created: now,
        data: Array.from({ length: n }, () => (b64 ? { b64_json: PIXEL_PNG } : { url: imageUrl() })),
      };
    }
  }
}
