// The streaming form (server-sent events) of the synchronous text entry points, as each family's SDK reads
// it: built from the whole answer (gateway-replies.ts), its text cut in two deltas. OpenAI chat: `data:`
// chunks then `data: [DONE]`; responses: typed events `response.created` ... `response.completed`;
// Anthropic: `message_start` ... `message_stop`; Gemini (`streamGenerateContent?alt=sse`): `data:` lines of
// GenerateContentResponse.
import { Readable } from 'node:stream';
import { familyErrorReply, familyOf } from './gateway-errors.js';
import { errorReply, type Reply } from './reply.js';

const STREAM_KINDS = ['chatCompletions', 'responses', 'messages', 'generateContent'] as const;
export type StreamKind = (typeof STREAM_KINDS)[number];

/** The entry points with a streaming form. */
export function isStreamKind(kind: string): kind is StreamKind {
  return (STREAM_KINDS as readonly string[]).includes(kind);
}

type Json = Record<string, unknown>;

function halves(text: string): [string, string] {
  const cut = Math.ceil(text.length / 2);
  return [text.slice(0, cut), text.slice(cut)];
}

const data = (json: unknown) => `data: ${JSON.stringify(json)}\n\n`;
const event = (json: Json) => `event: ${String(json.type)}\ndata: ${JSON.stringify(json)}\n\n`;

function chatEvents(whole: Json, body: Json): string {
  const choice = (whole.choices as Json[])[0]!;
  const text = String((choice.message as Json).content);
  const head = { id: whole.id, object: 'chat.completion.chunk', created: whole.created, model: whole.model };
  const chunk = (delta: Json, finish: string | null) => ({
    ...head,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  });
  const includeUsage = (body.stream_options as Json | undefined)?.include_usage === true;
  return [
    data(chunk({ role: 'assistant', content: '', refusal: null }, null)),
    ...halves(text).map((t) => data(chunk({ content: t }, null))),
    data(chunk({}, 'stop')),
    ...(includeUsage ? [data({ ...head, choices: [], usage: whole.usage })] : []),
    'data: [DONE]\n\n',
  ].join('');
}

function responsesEvents(whole: Json): string {
  const item = (whole.output as Json[])[0]!;
  const part = (item.content as Json[])[0]!;
  const text = String(part.text);
  // Usage is known at the end only: absent (not null, which the schema refuses) until response.completed.
  const { usage: _usage, ...head } = whole;
  const pending = { ...head, status: 'in_progress', output: [] };
  const ids = { item_id: item.id, output_index: 0, content_index: 0 };
  const list: Json[] = [
    { type: 'response.created', response: pending },
    { type: 'response.in_progress', response: pending },
    { type: 'response.output_item.added', output_index: 0, item: { ...item, status: 'in_progress', content: [] } },
    { type: 'response.content_part.added', ...ids, part: { ...part, text: '' } },
    ...halves(text).map((delta) => ({ type: 'response.output_text.delta', ...ids, delta, logprobs: [] })),
    { type: 'response.output_text.done', ...ids, text, logprobs: [] },
    { type: 'response.content_part.done', ...ids, part },
    { type: 'response.output_item.done', output_index: 0, item },
    { type: 'response.completed', response: whole },
  ];
  return list.map((e, sequence_number) => event({ ...e, sequence_number })).join('');
}

function messagesEvents(whole: Json): string {
  const text = String(((whole.content as Json[])[0] as Json).text);
  const usage = whole.usage as Json;
  return [
    event({
      type: 'message_start',
      message: { ...whole, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } },
    }),
    event({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '', citations: null } }),
    ...halves(text).map((t) =>
      event({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: t } }),
    ),
    event({ type: 'content_block_stop', index: 0 }),
    event({
      type: 'message_delta',
      delta: { container: null, stop_details: null, stop_reason: whole.stop_reason, stop_sequence: null },
      usage: {
        cache_creation_input_tokens: usage.cache_creation_input_tokens,
        cache_read_input_tokens: usage.cache_read_input_tokens,
        input_tokens: usage.input_tokens,
        output_tokens: usage.output_tokens,
        output_tokens_details: null,
        server_tool_use: null,
      },
    }),
    event({ type: 'message_stop' }),
  ].join('');
}

function generateContentEvents(whole: Json): string {
  const candidate = (whole.candidates as Json[])[0]!;
  const text = String((((candidate.content as Json).parts as Json[])[0] as Json).text);
  const [first, second] = halves(text);
  const piece = (t: string, last: boolean) => ({
    ...whole,
    candidates: [
      {
        content: { role: 'model', parts: [{ text: t }] },
        index: 0,
        ...(last ? { finishReason: candidate.finishReason } : {}),
      },
    ],
    ...(last ? {} : { usageMetadata: undefined }),
  });
  return data(piece(first, false)) + data(piece(second, true));
}

/** The whole answer `whole` to request `body`, as the event stream of its family. */
export function streamReply(kind: StreamKind, whole: unknown, body: Json): Reply {
  const w = whole as Json;
  const text =
    kind === 'chatCompletions'
      ? chatEvents(w, body)
      : kind === 'responses'
        ? responsesEvents(w)
        : kind === 'messages'
          ? messagesEvents(w)
          : generateContentEvents(w);
  return { status: 200, text, contentType: 'text/event-stream', headers: { 'cache-control': 'no-cache' } };
}

/** How long a failing stream pauses before its error, so that the error arrives as a read of its own. */
const PAUSE_BEFORE_ERROR_MS = 30;

/** Each family's mid-stream error, as its SDKs read it, for the family's error body `envelope`. */
function streamErrorText(pathname: string, envelope: Json, sent: number): string {
  switch (familyOf(pathname)) {
    case 'openai': {
      // Responses: the typed `error` event; chat: a `data:` chunk holding the error (both openai SDKs read it).
      const error = envelope.error as Json;
      return pathname === '/v1/responses'
        ? event({ type: 'error', code: error.code, message: error.message, param: null, sequence_number: sent })
        : data(envelope);
    }
    case 'anthropic':
      return event(envelope);
    default:
      // Gemini: the error body itself, not an SSE event, as Google sends it (both genai SDKs look for it).
      return `${JSON.stringify(envelope, null, 2)}\n`;
  }
}

/**
 * The event stream `reply` failing after `afterEvents` of its events: those, then (apart) the path family's
 * mid-stream error for `status`, and the end. Undefined when `reply` is not an event stream.
 */
export function failedStreamReply(
  pathname: string,
  reply: Reply,
  fault: { afterEvents?: number; status?: number },
): Reply | undefined {
  if (reply.contentType !== 'text/event-stream' || reply.text === undefined) return undefined;
  const events = reply.text.split(/(?<=\n\n)/).filter((e) => e.trim() !== '');
  const sent = events.slice(0, fault.afterEvents ?? 2);
  const status = fault.status ?? 500;
  const envelope = familyErrorReply(
    pathname,
    errorReply(status, `http_${status}`, `sandbox fault: the stream failed after ${sent.length} events`),
  ).json as Json;
  const errorText = streamErrorText(pathname, envelope, sent.length);
  async function* body() {
    yield sent.join('');
    await new Promise((resolve) => setTimeout(resolve, PAUSE_BEFORE_ERROR_MS));
    yield errorText;
  }
  const { text: _text, ...rest } = reply;
  return { ...rest, stream: Readable.from(body()) };
}
