// The official Python SDKs as test clients of the sandbox (issue 37): openai, anthropic, google-genai and
// volcengine's Ark runtime (pinned in test/python/sdks/requirements.txt, installed from PyPI into .tmp/ by
// scripts/python-sdks.mjs) run test/python/sdks/clients.py against a sandbox of this test over real HTTP.
// Each call is the Node SDK table's (test/sdks/sdks.test.ts), parsed by the Python SDK's own code; this
// file checks what each one read.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from 'temporal-review-video-sandbox';

const clients = fileURLToPath(new URL('./sdks/clients.py', import.meta.url));

interface CallReport {
  call: string;
  ok: boolean;
  detail?: Record<string, unknown>;
  error?: string;
}

let sb: Sandbox;
const reports = new Map<string, CallReport>();

beforeAll(async () => {
  const script = fileURLToPath(new URL('../../scripts/python-sdks.mjs', import.meta.url));
  const run = promisify(execFile);
  const python = (await run(process.execPath, [script, '--print-path'], { timeout: 900_000 })).stdout.trim();
  sb = await startSandbox({ videoDurationMs: 100 });
  const { stdout } = await run(python, [clients], {
    timeout: 300_000,
    env: { ...process.env, SANDBOX_URL: sb.videoBaseUrl, SANDBOX_KEY: sb.apiKey, PYTHONDONTWRITEBYTECODE: '1' },
  });
  for (const line of stdout.split('\n').filter(Boolean)) {
    const report = JSON.parse(line) as CallReport;
    reports.set(report.call, report);
  }
}, 900_000);
afterAll(async () => {
  await sb?.close();
});

/** What the SDK read in `call`; fails with the Python traceback when the call raised. */
function read(call: string): Record<string, unknown> {
  const report = reports.get(call);
  expect(report, `${call} did not run`).toBeDefined();
  expect(report!.error ?? '').toBe('');
  return report!.detail!;
}

const file = { status: 200, type: 'image/png', bytes: expect.any(Number) };

describe('openai (Python)', () => {
  it('chat.completions.create', () => {
    expect(read('openai_chat')).toMatchObject({
      text: expect.stringMatching(/hi python/),
      refusal: null,
      reasoning_tokens: 0,
    });
  });
  it('chat.completions.create stream', () => {
    const d = read('openai_chat_stream');
    expect(d.chunks).toBeGreaterThanOrEqual(2);
    expect(d).toMatchObject({ text: expect.stringMatching(/stream python/), finish: 'stop' });
  });
  it('responses.create', () => {
    expect(read('openai_responses')).toMatchObject({
      status: 'completed',
      text: expect.stringMatching(/responses python/),
      error: null,
    });
  });
  it('responses.stream: response.created ... response.completed, and the final response', () => {
    expect(read('openai_responses_stream')).toMatchObject({
      first: 'response.created',
      last: 'response.completed',
      text: expect.stringMatching(/responses stream python/),
      final_status: 'completed',
    });
  });
  it('images.generate: the URL resolves', () => {
    expect(read('openai_images_generate')).toMatchObject({ file });
  });
  it('images.edit with two images: the URL resolves', () => {
    expect(read('openai_images_edit')).toMatchObject({ file });
    const edit = sb.requests().find((e) => e.path === '/v1/images/edits');
    expect(String(edit?.body).match(/name="image\[\]"/g)).toHaveLength(2);
  });
  it('videos.create (multipart), retrieve until completed, download_content', () => {
    const d = read('openai_videos');
    expect(d).toMatchObject({ created: { expires_at: null, error: null }, status: 'completed', type: 'video/mp4' });
    expect(d.bytes).toBeGreaterThan(0);
  });
  it('a stream failing mid-way raises APIError after the chunks that came', () => {
    expect(read('openai_chat_stream_error')).toMatchObject({ raised: 'APIError', chunks: 2 });
  });
});

describe('anthropic (Python)', () => {
  it('messages.create', () => {
    expect(read('anthropic_messages')).toMatchObject({
      text: expect.stringMatching(/bonjour python/),
      stop_reason: 'end_turn',
    });
  });
  it('messages.stream: message_start ... message_stop, and the final message', () => {
    expect(read('anthropic_messages_stream')).toMatchObject({
      first: 'message_start',
      last: 'message_stop',
      text: expect.stringMatching(/stream bonjour/),
      stop_reason: 'end_turn',
    });
  });
  // The stream's status was 200: the SDK raises its generic APIStatusError with the error event's body.
  it('a stream failing mid-way raises APIStatusError with the overloaded_error', () => {
    expect(read('anthropic_stream_error')).toMatchObject({
      raised: 'APIStatusError',
      body: { type: 'error', error: { type: 'overloaded_error' } },
    });
  });
});

describe('google-genai (Python)', () => {
  it('models.generate_content', () => {
    expect(read('genai_generate_content')).toMatchObject({ text: expect.stringMatching(/guten tag python/) });
  });
  it('models.generate_content_stream', () => {
    const d = read('genai_generate_content_stream');
    expect(d.chunks).toBeGreaterThanOrEqual(2);
    expect(d.text).toMatch(/stream guten tag/);
  });
  it('a stream failing mid-way raises ServerError 503 after the chunks that came', () => {
    expect(read('genai_stream_error')).toMatchObject({ raised: 'ServerError', status: 503, chunks: 2 });
  });
});

describe('volcengine Ark runtime (Python)', () => {
  it('content_generation.tasks.create (unset options sent as null) and tasks.get on the native paths', () => {
    const d = read('ark_tasks');
    expect(d).toMatchObject({ id: expect.any(String), status: 'succeeded', video_url: expect.stringMatching(/^http/) });
    const create = sb.requests().find((e) => e.path === '/v1/task/create');
    expect(create?.body).toMatchObject({ model: 'seedance-1', callback_url: null, seed: null, ratio: null });
    expect(sb.requests().some((e) => e.path === `/v1/task/get/${String(d.id)}`)).toBe(true);
  });
});
