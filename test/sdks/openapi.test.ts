// The sandbox's OpenAI-family bodies against OpenAI's published OpenAPI description (issue 37): the answers
// of chat completions (whole and each stream chunk), responses (whole and each stream event), images
// generations and edits, /v1/videos (created, queried, completed) and the error envelope, each valid
// against the schema of its operation. The schemas are vendored in test/sdks/openapi (source and licence
// there).
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from 'temporal-review-video-sandbox';

const vendored = JSON.parse(readFileSync(new URL('./openapi/openai-schemas.json', import.meta.url), 'utf8')) as {
  schemas: Record<string, unknown>;
};
/**
 * OpenAPI 3.0's `nullable: true` (5 leftovers in this 3.1 description, Ajv refuses it without `type`) read as
 * it means: the schema, or null.
 */
function nullableAsNull(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(nullableAsNull);
  if (typeof v !== 'object' || v === null) return v;
  const entries = Object.entries(v).filter(([k, x]) => !(k === 'nullable' && typeof x === 'boolean'));
  const inner = Object.fromEntries(entries.map(([k, x]) => [k, nullableAsNull(x)]));
  return (v as { nullable?: unknown }).nullable === true ? { anyOf: [inner, { type: 'null' }] } : inner;
}
const ROOT = 'https://sandbox.test/openai-openapi.json';
// strict: false: the description carries OpenAPI keywords (discriminator, nullable, x-*) that are annotations.
const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
ajv.addSchema({ $id: ROOT, components: { schemas: nullableAsNull(vendored.schemas) } });

function problems(schema: string, body: unknown): string[] {
  const validate = ajv.getSchema(`${ROOT}#/components/schemas/${schema}`);
  if (!validate) throw new Error(`no schema ${schema}`);
  return validate(body) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? ''}`);
}

/** A stream event's own schema, by its `type` (ResponseStreamEvent is a union of one schema per type). */
function eventSchema(union: string, event: unknown): string {
  const refs = (vendored.schemas[union] as { anyOf: Array<{ $ref: string }> }).anyOf.map((r) =>
    r.$ref.split('/').pop()!,
  );
  const type = (event as { type?: unknown }).type;
  const name = refs.find((n) => {
    const t = (vendored.schemas[n] as { properties?: { type?: { enum?: unknown[]; const?: unknown } } }).properties
      ?.type;
    return t?.enum?.includes(type) === true || t?.const === type;
  });
  if (name === undefined) throw new Error(`no ${union} member for type ${String(type)}`);
  return name;
}

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox({ videoDurationMs: 100 });
});
afterAll(async () => {
  await sb?.close();
});

async function post(path: string, body: unknown, key = sb.apiKey): Promise<Response> {
  return fetch(`${sb.videoBaseUrl}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

/** The JSON of each `data:` line of an event stream, `[DONE]` left out. */
async function events(res: Response): Promise<unknown[]> {
  expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const lines = (await res.text()).split('\n').filter((l) => l.startsWith('data: ') && l !== 'data: [DONE]');
  return lines.map((l) => JSON.parse(l.slice('data: '.length)) as unknown);
}

describe('OpenAI OpenAPI description: 0 invalid sandbox bodies', () => {
  const chat = { model: 'gpt-x', messages: [{ role: 'user', content: 'hi' }] };

  it('chat completions: CreateChatCompletionResponse and each CreateChatCompletionStreamResponse', async () => {
    expect(problems('CreateChatCompletionResponse', await (await post('/v1/chat/completions', chat)).json())).toEqual(
      [],
    );
    const chunks = await events(
      await post('/v1/chat/completions', { ...chat, stream: true, stream_options: { include_usage: true } }),
    );
    expect(chunks.length).toBeGreaterThan(2);
    expect(chunks.flatMap((c) => problems('CreateChatCompletionStreamResponse', c))).toEqual([]);
  });

  it('responses: Response and each ResponseStreamEvent', async () => {
    const input = { model: 'gpt-x', input: 'hello' };
    expect(problems('Response', await (await post('/v1/responses', input)).json())).toEqual([]);
    const all = await events(await post('/v1/responses', { ...input, stream: true }));
    expect(all.length).toBeGreaterThan(5);
    expect(
      all.flatMap((e) =>
        problems(eventSchema('ResponseStreamEvent', e), e).map((p) => `${eventSchema('ResponseStreamEvent', e)}${p}`),
      ),
    ).toEqual([]);
    expect(all.flatMap((e) => problems('ResponseStreamEvent', e))).toEqual([]);
  });

  it('images generations and edits (JSON form): ImagesResponse', async () => {
    const gen = await (await post('/v1/images/generations', { prompt: 'a kite', n: 2 })).json();
    const edit = await (
      await post('/v1/images/edits', { prompt: 'edit', images: [{ image_url: 'https://example.com/a.png' }] })
    ).json();
    expect([...problems('ImagesResponse', gen), ...problems('ImagesResponse', edit)]).toEqual([]);
  });

  it('videos: VideoResource when created, queried and completed', async () => {
    const created = (await (await post('/v1/videos', { model: 'sora-2', prompt: 'a red kite' })).json()) as {
      id: string;
    };
    const get = async () =>
      (await (
        await fetch(`${sb.videoBaseUrl}/v1/videos/${created.id}`, { headers: { authorization: `Bearer ${sb.apiKey}` } })
      ).json()) as { status: string };
    const seen: unknown[] = [created, await get()];
    let last = await get();
    for (let i = 0; i < 50 && last.status !== 'completed'; i++) {
      await new Promise((r) => setTimeout(r, 20));
      last = await get();
    }
    expect(last.status).toBe('completed');
    expect([...seen, last].flatMap((v) => problems('VideoResource', v))).toEqual([]);
  });

  it('errors: ErrorResponse on 400, 401 and 404', async () => {
    const bodies = [
      await (await post('/v1/chat/completions', { model: 'gpt-x', messages: [] })).json(),
      await (await post('/v1/responses', { model: 'gpt-x', input: 'x' }, 'wrong')).json(),
      await (
        await fetch(`${sb.videoBaseUrl}/v1/videos/nope`, { headers: { authorization: `Bearer ${sb.apiKey}` } })
      ).json(),
    ];
    expect(bodies.flatMap((b) => problems('ErrorResponse', b))).toEqual([]);
  });
});
