// Issue 37, client defect 2: `stream: true` asks the provider for a server-sent event stream, which this
// client does not read. Sent anyway, the 2xx answer was an unreadable body, classified as a retryable
// "malformed response", so the call was sent (and billed) a second time. Decided: the client refuses
// `stream: true` before any request and says what to send instead; and a 2xx whose body cannot be read
// is never sent again by rtgCallGateway (the answer arrived: the call was processed).
import { MockActivityEnvironment } from '@temporalio/testing';
import { FormData } from 'undici';
import { describe, expect, it } from 'vitest';
import { withSandbox } from '../support/sandbox.js';
import { createGatewayActivities } from '../../src/activities/gateway.js';
import { RequestValidationError } from '../../src/model/validation.js';
import type { GatewayEndpointName } from '../../src/model/video/gateway-endpoints.js';
import { activityFailure } from '../support/failures.js';

// The sandbox in this process and our video client on it, reset before each test.
const ctx = withSandbox({ videoDurationMs: 200, timeoutMs: 5_000 });

const streamed: Array<{ endpoint: GatewayEndpointName; body: Record<string, unknown>; params?: { model: string } }> = [
  { endpoint: 'chatCompletions', body: { model: 'm', messages: [{ role: 'user', content: 'hi' }], stream: true } },
  { endpoint: 'responses', body: { model: 'm', input: 'hi', stream: true } },
  {
    endpoint: 'messages',
    body: { model: 'm', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }], stream: true },
  },
  { endpoint: 'imagesGenerations', body: { prompt: 'a kite', stream: true } },
];

describe('stream: true', () => {
  it.each(streamed)('$endpoint: refused before any request, naming what to send instead', async (c) => {
    const err = await ctx.video.gateway(c.endpoint, { body: c.body }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(RequestValidationError);
    expect((err as RequestValidationError).issues).toEqual([
      expect.objectContaining({ field: 'stream', rule: expect.stringContaining('send it without `stream`') }),
    ]);
    expect(ctx.sandbox.requests()).toHaveLength(0);
  });

  it('a multipart images edit with stream=true is refused the same way', async () => {
    const form = new FormData();
    form.append('prompt', 'add a sun');
    form.append('image', new Blob([Buffer.from('png')], { type: 'image/png' }), 'a.png');
    form.append('stream', 'true');
    await expect(ctx.video.gateway('imagesEdits', { body: form })).rejects.toBeInstanceOf(RequestValidationError);
    expect(ctx.sandbox.requests()).toHaveLength(0);
  });

  it('stream: false is sent as any other body', async () => {
    const res = await ctx.video.gateway('chatCompletions', {
      body: { model: 'm', messages: [{ role: 'user', content: 'hi' }], stream: false },
    });
    expect(res.status).toBe(200);
    expect(ctx.sandbox.requests()).toHaveLength(1);
  });

  it('rtgCallGateway: InvalidInput, not retryable, nothing sent', async () => {
    const acts = createGatewayActivities({ video: ctx.video });
    const f = await activityFailure(
      new MockActivityEnvironment().run(acts.rtgCallGateway, {
        endpoint: 'chatCompletions' as const,
        body: streamed[0]!.body,
      }),
    );
    expect(f).toMatchObject({ type: 'InvalidInput', nonRetryable: true });
    expect(f.message).toContain('stream');
    expect(ctx.sandbox.requests()).toHaveLength(0);
  });
});

describe('a 2xx whose body cannot be read, on a synchronous call', () => {
  it('rtgCallGateway does not send it again: the answer arrived, the call was processed', async () => {
    ctx.sandbox.addFault({ operation: 'other', fault: { type: 'malformed' }, times: 1 });
    const acts = createGatewayActivities({ video: ctx.video });
    const f = await activityFailure(
      new MockActivityEnvironment().run(acts.rtgCallGateway, {
        endpoint: 'chatCompletions' as const,
        body: { model: 'm', messages: [{ role: 'user', content: 'hi' }] },
      }),
    );
    expect(f.nonRetryable).toBe(true);
    expect(f.message).toContain('not sent again');
    expect(f.details?.[0]).toMatchObject({ kind: 'malformed-response', status: 200 });
    expect(ctx.sandbox.requests()).toHaveLength(1);
  });
});
