// Issue 37, client defects 3 and 4: an error's type decides whether it is retried, not its status alone.
// A billing stop (OpenAI's 429 `insufficient_quota`, Anthropic's `billing_error`, Google's
// `BILLING_DISABLED`), a content-policy refusal or an invalid request is final; a rate limit is retried
// after the provider's own delay wherever it puts it (the `retry-after-ms` or `Retry-After` header, or
// Gemini's `RetryInfo.retryDelay` in the body); an overload is retryable and was not processed.
// The bodies are the providers' documented error bodies (source named per row), answered by the sandbox
// over HTTP, or by a node:http server of the test where a header the sandbox cannot send is needed.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createGatewayActivities } from '../../src/activities/gateway.js';
import { startSandbox, type Sandbox } from 'temporal-review-video-sandbox';
import { ServiceError } from '../../src/services/errors.js';
import { VideoClient } from '../../src/services/video/client.js';
import { activityFailure } from '../support/failures.js';

let sb: Sandbox;
let video: VideoClient;

const clientFor = (baseUrl: string, apiKey: string) =>
  new VideoClient({ baseUrl, apiKey, cancelMethod: 'POST', cancelPath: '/v1/task/cancel/{id}', timeoutMs: 5_000 });

beforeAll(async () => {
  sb = await startSandbox({ videoDurationMs: 200 });
  video = clientFor(sb.videoBaseUrl, sb.apiKey);
});
afterAll(async () => {
  await video?.close();
  await sb?.close();
});
beforeEach(() => sb.reset());

const chat = { model: 'm', messages: [{ role: 'user', content: 'hi' }] };

interface Row {
  what: string;
  /** Where the body comes from. */
  source: string;
  status: number;
  retryAfter?: string;
  body: unknown;
  expected: { retryable: boolean; ambiguous: boolean; retryAfterMs?: number | undefined };
}

const rows: Row[] = [
  {
    what: 'OpenAI 429 insufficient_quota (billing stop): final',
    source:
      'OpenAI API docs, Error codes: "429 - You exceeded your current quota, please check your plan and billing details"',
    status: 429,
    body: {
      error: {
        message:
          'You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.',
        type: 'insufficient_quota',
        param: null,
        code: 'insufficient_quota',
      },
    },
    expected: { retryable: false, ambiguous: false },
  },
  {
    what: 'OpenAI 429 rate_limit_exceeded: retried after Retry-After',
    source: 'OpenAI API docs, Error codes: "429 - Rate limit reached for requests"',
    status: 429,
    retryAfter: '3',
    body: {
      error: {
        message: 'Rate limit reached for gpt-4o in organization org-x on requests per min (RPM): Limit 3, Used 3.',
        type: 'requests',
        param: null,
        code: 'rate_limit_exceeded',
      },
    },
    expected: { retryable: true, ambiguous: false, retryAfterMs: 3_000 },
  },
  {
    what: 'OpenAI 400 content_policy_violation: final',
    source: 'OpenAI images API (openai-python tests / docs): code content_policy_violation',
    status: 400,
    body: {
      error: {
        message: 'Your request was rejected as a result of our safety system.',
        type: 'invalid_request_error',
        param: null,
        code: 'content_policy_violation',
      },
    },
    expected: { retryable: false, ambiguous: false },
  },
  {
    what: 'Anthropic 402 billing_error: final',
    source: 'Anthropic API docs, Errors: 402 billing_error',
    status: 402,
    body: { type: 'error', error: { type: 'billing_error', message: 'Your credit balance is too low.' } },
    expected: { retryable: false, ambiguous: false },
  },
  {
    what: 'Anthropic 429 rate_limit_error: retried after Retry-After',
    source: 'Anthropic API docs, Errors and Rate limits: 429 rate_limit_error with retry-after',
    status: 429,
    retryAfter: '7',
    body: {
      type: 'error',
      error: { type: 'rate_limit_error', message: 'Number of request tokens has exceeded your per-minute rate limit' },
    },
    expected: { retryable: true, ambiguous: false, retryAfterMs: 7_000 },
  },
  {
    what: 'Anthropic 529 overloaded_error: retryable, not processed (not ambiguous)',
    source: 'Anthropic API docs, Errors: 529 overloaded_error',
    status: 529,
    body: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
    expected: { retryable: true, ambiguous: false },
  },
  {
    what: 'Gemini 429 RESOURCE_EXHAUSTED: the wait is RetryInfo.retryDelay in the body',
    source: 'Gemini API troubleshooting (429 RESOURCE_EXHAUSTED) / google.rpc.RetryInfo in error.details',
    status: 429,
    body: {
      error: {
        code: 429,
        message: 'You exceeded your current quota, please check your plan and billing details.',
        status: 'RESOURCE_EXHAUSTED',
        details: [
          {
            '@type': 'type.googleapis.com/google.rpc.QuotaFailure',
            violations: [
              {
                quotaMetric: 'generativelanguage.googleapis.com/generate_content_free_tier_requests',
                quotaId: 'GenerateRequestsPerMinutePerProjectPerModel-FreeTier',
                quotaDimensions: { location: 'global', model: 'gemini-2.0-flash' },
                quotaValue: '15',
              },
            ],
          },
          {
            '@type': 'type.googleapis.com/google.rpc.Help',
            links: [{ description: 'Learn more', url: 'https://ai.google.dev/gemini-api/docs/rate-limits' }],
          },
          { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '31s' },
        ],
      },
    },
    expected: { retryable: true, ambiguous: false, retryAfterMs: 31_000 },
  },
  {
    what: 'Google 403 ErrorInfo BILLING_DISABLED: final',
    source: 'Google APIs error model (google.rpc.ErrorInfo reason BILLING_DISABLED)',
    status: 403,
    body: {
      error: {
        code: 403,
        message: 'This API method requires billing to be enabled.',
        status: 'PERMISSION_DENIED',
        details: [
          { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'BILLING_DISABLED', domain: 'googleapis.com' },
        ],
      },
    },
    expected: { retryable: false, ambiguous: false },
  },
];

describe('the error type decides retry', () => {
  it.each(rows)('$what', async (row) => {
    sb.addFault({
      operation: 'other',
      times: 1,
      fault: {
        type: 'status',
        status: row.status,
        body: row.body,
        ...(row.retryAfter ? { retryAfter: row.retryAfter } : {}),
      },
    });
    const err = await video.chatCompletions(chat).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ServiceError);
    const e = err as ServiceError;
    expect({ retryable: e.retryable, ambiguous: e.ambiguous, retryAfterMs: e.retryAfterMs }).toEqual({
      retryAfterMs: undefined,
      ...row.expected,
    });
    expect(e.status).toBe(row.status);
  });

  it('OpenAI retry-after-ms is read before Retry-After (as the official SDK does)', async () => {
    const server: Server = createServer((_req, res) => {
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after-ms': '1500', 'retry-after': '9' });
      res.end(
        JSON.stringify({
          error: { message: 'Rate limit reached', type: 'tokens', param: null, code: 'rate_limit_exceeded' },
        }),
      );
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const own = clientFor(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, 'sk-test');
    try {
      const e = (await own.chatCompletions(chat).then(
        () => undefined,
        (x: unknown) => x,
      )) as ServiceError;
      expect(e).toBeInstanceOf(ServiceError);
      expect(e.retryable).toBe(true);
      expect(e.retryAfterMs).toBe(1_500);
    } finally {
      await own.close();
      await new Promise((r) => server.close(r));
    }
  });
});

describe('in the activities', () => {
  const quotaStop = rows[0]!;

  it('rtgCallGateway: a billing stop is a non-retryable failure', async () => {
    sb.addFault({ operation: 'other', times: 1, fault: { type: 'status', status: 429, body: quotaStop.body } });
    const acts = createGatewayActivities({ video });
    const f = await activityFailure(
      new MockActivityEnvironment().run(acts.rtgCallGateway, { endpoint: 'chatCompletions' as const, body: chat }),
    );
    expect(f.nonRetryable).toBe(true);
    expect(f.message).toContain('insufficient_quota');
    expect(sb.requests()).toHaveLength(1);
  });

  it('rtgCreateGatewayTask: a billing stop is final, not a "not created, send again"', async () => {
    sb.addFault({ operation: 'other', times: 1, fault: { type: 'status', status: 429, body: quotaStop.body } });
    const acts = createGatewayActivities({ video });
    const f = await activityFailure(
      new MockActivityEnvironment().run(acts.rtgCreateGatewayTask, {
        entryPoint: 'videos' as const,
        body: { model: 'sora-2', prompt: 'a kite' },
      }),
    );
    expect(f.nonRetryable).toBe(true);
    expect(f.type).toBe('VideoRequestRejected');
  });

  it('rtgCreateGatewayTaskWithinQuota: a granted create stopped for billing fails; it is no quota back-pressure', async () => {
    sb.addFault({ operation: 'other', times: 1, fault: { type: 'status', status: 429, body: quotaStop.body } });
    const acts = createGatewayActivities({
      video,
      admission: { video: { key: 'video@test', maxTasksInFlight: 2, byModel: {} } },
    });
    // A back-pressure 429 would tell the gate (a signal, which this mock context has no client for) and
    // answer `refused`; a billing stop must end the create instead.
    const f = await activityFailure(
      new MockActivityEnvironment().run(acts.rtgCreateGatewayTaskWithinQuota, {
        entryPoint: 'videos' as const,
        body: { model: 'sora-2', prompt: 'a kite' },
        admission: { requestId: 'r1', granted: true },
      }),
    );
    expect(f).toMatchObject({ type: 'VideoRequestRejected', nonRetryable: true });
    expect(sb.requests()).toHaveLength(1);
  });

  it('rtgCallGateway: a Gemini rate limit is retried after its RetryInfo delay', async () => {
    const gemini = rows.find((r) => r.status === 429 && JSON.stringify(r.body).includes('RetryInfo'))!;
    sb.addFault({ operation: 'other', times: 1, fault: { type: 'status', status: 429, body: gemini.body } });
    const acts = createGatewayActivities({ video });
    const f = await activityFailure(
      new MockActivityEnvironment().run(acts.rtgCallGateway, {
        endpoint: 'generateContent' as const,
        params: { model: 'gemini-2.0-flash' },
        body: { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] },
      }),
    );
    expect(f.nonRetryable).toBe(false);
    expect(f.nextRetryDelay).toBe(31_000);
  });
});
