// Property tests of the real callback receiver (startCallbackServer with a real Temporal client), fed raw
// bytes over node:net: whatever bytes, headers and lengths arrive, a request that is not a signed JSON
// object gets a 4xx and no workflow is signalled; the connection never hangs; memory stays flat.
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { runInNewContext } from 'node:vm';
import { setFlagsFromString } from 'node:v8';
import type { AddressInfo } from 'node:net';
import type { WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCallbackServer, type CallbackServer } from '../../src/callbacks/server.js';
import { callbackUrlFor } from '../support/callback-urls.js';
import { startWorker, testClient, type RunningWorker } from '../support/temporal.js';
import { sendRaw } from '../support/raw-http.js';
import { finishSignal, receivedQuery, type signalRecorder } from './signal-recorder-workflow.js';

const secret = `receiver-property-secret-${randomUUID()}`;
let receiver: CallbackServer;
let port: number;
let worker: RunningWorker;
let recorder: WorkflowHandleWithFirstExecutionRunId<typeof signalRecorder>;
/** The signed callback paths of the recorder workflow: the only ones that may ever signal. */
let signedPaths: { review: string; video: string };

beforeAll(async () => {
  const client = await testClient();
  receiver = await startCallbackServer({ client, secret, port: 0 });
  port = (receiver.server.address() as AddressInfo).port;
  worker = await startWorker({
    workflowsPath: fileURLToPath(new URL('./signal-recorder-workflow.ts', import.meta.url)),
  });
  recorder = await client.workflow.start<typeof signalRecorder>('signalRecorder', {
    taskQueue: worker.taskQueue,
    workflowId: `recorder-${randomUUID()}`,
  });
  const path = (kind: 'review' | 'video') => {
    const url = new URL(callbackUrlFor(receiver.url, secret, kind, recorder));
    return url.pathname + url.search;
  };
  signedPaths = { review: path('review'), video: path('video') };
});

afterAll(async () => {
  await recorder?.signal(finishSignal).catch(() => undefined);
  await worker?.stop();
  await receiver?.close();
});

const RUNS = { numRuns: 150, endOnFailure: true } as const;
const ascii = (min: number, max: number) =>
  fc.string({
    unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)),
    minLength: min,
    maxLength: max,
  });
const token = ascii(1, 12).map((s) => s.replace(/[()<>@,;:\\"/[\]?={}]/g, 'x'));
const headerValue = fc.string({
  unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
  maxLength: 60,
});
const bytes = (max: number) => fc.uint8Array({ maxLength: max }).map((a) => Buffer.from(a));

/** Paths that look like callbacks (of the recorder or not) without a valid signature for them, and others. */
const unsignedPath = fc.oneof(
  fc
    .tuple(fc.constantFrom('review', 'video'), ascii(0, 60))
    .map(
      ([kind, sig]) => `/callbacks/${kind}/${encodeURIComponent(recorder.workflowId)}?sig=${encodeURIComponent(sig)}`,
    ),
  fc.constantFrom('review', 'video').map((kind) => `/callbacks/${kind}/${encodeURIComponent(recorder.workflowId)}`),
  // The right signature under the other kind: signatures are bound to (kind, workflow id).
  fc.constant(null).map(() => signedPaths.review.replace('/callbacks/review/', '/callbacks/video/')),
  fc
    .tuple(fc.constantFrom('review', 'video', 'other', ''), ascii(1, 40), ascii(0, 50))
    .map(([kind, id, sig]) => `/callbacks/${kind}/${encodeURIComponent(id)}?sig=${encodeURIComponent(sig)}`),
  ascii(1, 80)
    .map((p) => `/${p}`)
    .filter((p) => p !== '/healthz'),
  fc.constantFrom(
    '*',
    '/',
    '//callbacks/review/x',
    '/callbacks/review/%E0%A4%A?sig=a',
    '/callbacks/review/x/../../healthz',
  ),
);

const method = fc.oneof(
  fc.constantFrom('POST', 'GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'),
  token.map((t) => t.toUpperCase()),
);
const extraHeaders = fc.array(fc.tuple(token, headerValue), { maxLength: 8 });
const contentType = fc.option(
  fc.constantFrom('application/json', 'text/plain', 'application/octet-stream', 'multipart/form-data; boundary=x', ''),
  { nil: undefined },
);

function request(
  m: string,
  path: string,
  headers: Array<[string, string]>,
  body: Buffer,
  length: string | undefined = String(body.length),
): Buffer {
  const lines = [
    `${m} ${path} HTTP/1.1`,
    'Host: 127.0.0.1',
    'Connection: close',
    ...headers.map(([k, v]) => `${k}: ${v}`),
  ];
  if (length !== undefined) lines.push(`Content-Length: ${length}`);
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), body]);
}

/** Headers our requests set themselves: a generated duplicate would change the framing under test. */
const framingFree = (hs: Array<[string, string]>) =>
  hs.filter(([k]) => !/^(content-length|transfer-encoding|connection|host|expect|upgrade)$/i.test(k));

const is4xx = (s: number) => s >= 400 && s < 500;

async function signalsReceived(): Promise<number> {
  return await recorder.query(receivedQuery);
}

describe('callback receiver under arbitrary input', () => {
  it('arbitrary bytes: only 4xx answers, never a hang', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          bytes(3_000),
          fc
            .tuple(fc.constantFrom('POST ', 'GET /', 'POST /callbacks/review/', 'POST / HTTP/1.1\r\n'), bytes(500))
            .map(([p, b]) => Buffer.concat([Buffer.from(p), b])),
        ),
        async (payload) => {
          const r = await sendRaw(port, payload, { timeoutMs: 15_000 });
          expect(r.closed).toBe(true);
          expect(r.statuses.every(is4xx)).toBe(true);
        },
      ),
      RUNS,
    );
    expect(await signalsReceived()).toBe(0);
  });

  it('well-framed requests without a valid signature: exactly one 4xx answer, whatever the method, path, headers and body', async () => {
    await fc.assert(
      fc.asyncProperty(
        method,
        unsignedPath,
        extraHeaders,
        contentType,
        fc.oneof(bytes(2_000), bytes(100_000)),
        async (m, path, headers, ct, body) => {
          const hs = framingFree(headers);
          if (ct !== undefined) hs.push(['Content-Type', ct]);
          const r = await sendRaw(
            port,
            request(m, path, hs, m === 'HEAD' ? Buffer.alloc(0) : body, m === 'HEAD' ? undefined : String(body.length)),
            { halfCloseAfterMs: 5_000, timeoutMs: 15_000 },
          );
          expect(r.closed).toBe(true);
          expect(r.statuses).toHaveLength(1);
          expect(is4xx(r.statuses[0]!)).toBe(true);
        },
      ),
      RUNS,
    );
    expect(await signalsReceived()).toBe(0);
  });

  it('lying or contradictory lengths: only 4xx answers, never a hang', async () => {
    const length = fc.oneof(
      fc.integer({ min: 0, max: 10_000_000 }).map(String),
      fc.constantFrom('-1', 'abc', '1e3', '0x10', ' 5', '5, 6', '99999999999999999999'),
    );
    const framing = fc.oneof(
      length.map((l) => [['Content-Length', l]] as Array<[string, string]>),
      fc.tuple(length, length).map(
        ([a, b]) =>
          [
            ['Content-Length', a],
            ['Content-Length', b],
          ] as Array<[string, string]>,
      ),
      length.map(
        (l) =>
          [
            ['Content-Length', l],
            ['Transfer-Encoding', 'chunked'],
          ] as Array<[string, string]>,
      ),
      fc.constantFrom<Array<[string, string]>>(
        [['Transfer-Encoding', 'chunked']],
        [['Transfer-Encoding', 'gzip, chunked']],
        [['Transfer-Encoding', 'identity']],
      ),
    );
    await fc.assert(
      fc.asyncProperty(unsignedPath, framing, bytes(5_000), async (path, lengths, body) => {
        const head = [
          `POST ${path} HTTP/1.1`,
          'Host: 127.0.0.1',
          'Content-Type: application/json',
          ...lengths.map(([k, v]) => `${k}: ${v}`),
        ];
        const payload = Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\n\r\n`, 'latin1'), body]);
        const r = await sendRaw(port, payload, { halfCloseAfterMs: 200, timeoutMs: 15_000 });
        expect(r.closed).toBe(true);
        expect(r.statuses.every(is4xx)).toBe(true);
      }),
      // A counterexample found in CI: a path starting with "//" was resolved as a host (500).
      { ...RUNS, examples: [["//czQ^B?'", [['Content-Length', '6750100']], Buffer.from([210, 79, 114, 26, 2])]] },
    );
    expect(await signalsReceived()).toBe(0);
  });

  it('correctly signed, but the body is not a JSON object: 400 (413 when too large), no signal', async () => {
    const notAnObject = fc.oneof(
      bytes(3_000).filter((b) => !isJsonObject(b)),
      fc
        .jsonValue()
        .filter((v) => typeof v !== 'object' || v === null || Array.isArray(v))
        .map((v) => Buffer.from(JSON.stringify(v))),
      fc
        .jsonValue()
        .map((v) => JSON.stringify({ id: 'cgt-1', status: 'succeeded', v }))
        .chain((t) => fc.integer({ min: 0, max: t.length - 1 }).map((cut) => Buffer.from(t.slice(0, cut)))),
      fc.integer({ min: 64 * 1024 + 1, max: 300_000 }).map((n) => Buffer.alloc(n, '{')),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('review', 'video') as fc.Arbitrary<'review' | 'video'>,
        contentType,
        notAnObject,
        async (kind, ct, body) => {
          const hs: Array<[string, string]> = ct === undefined ? [] : [['Content-Type', ct]];
          const r = await sendRaw(port, request('POST', signedPaths[kind], hs, body), {
            halfCloseAfterMs: 5_000,
            timeoutMs: 15_000,
          });
          expect(r.closed).toBe(true);
          expect(r.statuses).toEqual([body.length > 64 * 1024 ? 413 : 400]);
        },
      ),
      RUNS,
    );
    expect(await signalsReceived()).toBe(0);
  });

  it('the recorder and the receiver were live all along: one valid callback is signalled', async () => {
    const r = await sendRaw(
      port,
      request(
        'POST',
        signedPaths.video,
        [['Content-Type', 'application/json']],
        Buffer.from('{"id":"cgt-1","status":"running"}'),
      ),
      { halfCloseAfterMs: 5_000 },
    );
    expect(r.statuses).toEqual([202]);
    await expect.poll(signalsReceived, { timeout: 10_000 }).toBe(1);
  });

  it('memory stays flat under thousands of refused requests, large bodies included', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const heap = () => {
      gc();
      gc();
      return process.memoryUsage().heapUsed;
    };
    const big = Buffer.alloc(200_000, 'x');
    const payloads = [
      request('POST', signedPaths.review, [['Content-Type', 'application/json']], big),
      request('POST', signedPaths.video, [['Content-Type', 'application/json']], Buffer.from('[1,2,3]')),
      request('POST', `/callbacks/review/${recorder.workflowId}?sig=nope`, [], big),
      request('POST', `/callbacks/video/${recorder.workflowId}`, [], Buffer.alloc(0), '900000000'),
      Buffer.from('GARBAGE\r\n\r\n'),
    ];
    const round = async (n: number) => {
      for (let i = 0; i < n; i += 25) {
        await Promise.all(
          payloads.flatMap((p) =>
            Array.from({ length: 5 }, () => sendRaw(port, p, { halfCloseAfterMs: 300, timeoutMs: 15_000 })),
          ),
        );
      }
    };
    await round(200); // warm-up: lazy allocations, JIT, connection state
    const before = heap();
    await round(2_000);
    const after = heap();
    // 2,000 requests push ~160 MB of bodies at the receiver; keeping any of them would show far above this.
    expect(after - before).toBeLessThan(16 * 1024 * 1024);
    expect(await signalsReceived()).toBe(1);
  });
});

function isJsonObject(b: Buffer): boolean {
  try {
    const v: unknown = JSON.parse(b.toString('utf8'));
    return typeof v === 'object' && v !== null && !Array.isArray(v);
  } catch {
    return false;
  }
}
