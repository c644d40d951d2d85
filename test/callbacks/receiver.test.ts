// The callback receiver over HTTP, against a real workflow on the dev server.
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCallbackServer, type CallbackServer } from '../../src/callbacks/server.js';
import { callbackUrlFor } from '../support/callback-urls.js';
import { startWorker, testClient, type RunningWorker } from '../support/temporal.js';
import { sendRaw } from '../support/raw-http.js';

const secret = 'receiver-test-secret-0123456789';
let receiver: CallbackServer;
let worker: RunningWorker;

beforeAll(async () => {
  receiver = await startCallbackServer({ client: await testClient(), secret, port: 0 });
  worker = await startWorker({
    workflowsPath: fileURLToPath(new URL('../fixtures/callback-sink-workflow.ts', import.meta.url)),
  });
});
afterAll(async () => {
  await worker.stop();
  await receiver.close();
});

async function post(
  url: string,
  body: string | Buffer,
  headers: Record<string, string> = { 'content-type': 'application/json' },
) {
  const res = await fetch(url, { method: 'POST', body, headers });
  return { status: res.status, text: await res.text() };
}

describe('callback receiver', () => {
  it('signals the workflow with only the task id and status, and answers 202 once Temporal accepted it', async () => {
    const client = await testClient();
    const handle = await client.workflow.start('callbackSink', {
      taskQueue: worker.taskQueue,
      workflowId: `sink-${randomUUID()}`,
      args: [2],
    });
    const reviewUrl = callbackUrlFor(receiver.url, secret, 'review', handle);
    const videoUrl = callbackUrlFor(receiver.url, secret, 'video', handle);
    expect(
      (
        await post(
          reviewUrl,
          JSON.stringify({ code: 200, task_id: 'rv-1', status: 'completed', result: { items: [] } }),
        )
      ).status,
    ).toBe(202);
    expect((await post(videoUrl, JSON.stringify({ data: { id: 'cgt-9', status: 'Succeeded' } }))).status).toBe(202);
    expect(await handle.result()).toEqual([
      { kind: 'review', signal: { taskId: 'rv-1', status: 'completed' } },
      { kind: 'video', signal: { taskId: 'cgt-9', status: 'succeeded' } },
    ]);
  });

  it('refuses bad signatures (401), wrong kind signatures (401), non-JSON (400), large bodies (413), other paths and methods', async () => {
    const id = `sink-${randomUUID()}`;
    const good = callbackUrlFor(receiver.url, secret, 'review', { workflowId: id, runId: randomUUID() });
    expect((await post(good.replace(/sig=[^&]+/, 'sig=bad'), '{}')).status).toBe(401);
    expect((await post(good.replace('/review/', '/video/'), '{}')).status).toBe(401);
    expect(
      (
        await post(
          callbackUrlFor(receiver.url, 'another-secret-0123456789', 'review', { workflowId: id, runId: randomUUID() }),
          '{}',
        )
      ).status,
    ).toBe(401);
    expect((await post(good, 'not json')).status).toBe(400);
    expect((await post(good, '[1,2]')).status).toBe(400);
    expect((await post(good, Buffer.alloc(70 * 1024, 'a'))).status).toBe(413);
    expect((await post(`${receiver.url}/elsewhere`, '{}')).status).toBe(404);
    expect((await fetch(good)).status).toBe(405);
  });

  it('reads a request target as a path, never as a host: "//..." and "*" get a 4xx, absolute-form works', async () => {
    const port = Number(new URL(receiver.url).port);
    const raw = (target: string, extra = '', body = '') =>
      sendRaw(
        port,
        Buffer.from(
          `POST ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\n${extra}\r\n${body}`,
          'latin1',
        ),
        { halfCloseAfterMs: 200 },
      );
    // Found by the property test: "//czQ^B" resolved against a base is a URL with an invalid host (was a 500).
    expect(await raw("//czQ^B?'", 'Content-Length: 6750100\r\n', 'abcde')).toMatchObject({
      closed: true,
      statuses: [404],
    });
    expect(await raw('//czQ^B', 'Content-Length: 0\r\n')).toMatchObject({ statuses: [404] });
    expect(await raw('*', 'Content-Length: 0\r\n')).toMatchObject({ statuses: [400] });
    const id = `never-started-${randomUUID()}`;
    const signed = new URL(callbackUrlFor(receiver.url, secret, 'video', { workflowId: id, runId: randomUUID() }));
    // "//callbacks/..." was read as host "callbacks": now it is a path under the base "/", signature checked.
    const doubled = `/${signed.pathname}${signed.search}`;
    expect(await raw(doubled.replace(/sig=[^&]+/, 'sig=bad'), 'Content-Length: 2\r\n', '{}')).toMatchObject({
      statuses: [401],
    });
    expect(await raw(doubled, 'Content-Length: 2\r\n', '{}')).toMatchObject({ statuses: [202] });
    expect(await raw(signed.href, 'Content-Length: 2\r\n', '{}')).toMatchObject({ statuses: [202] });
  });

  it('signals only the run a URL was signed for: a late callback of an earlier run never reaches a new one', async () => {
    const client = await testClient();
    const workflowId = `sink-${randomUUID()}`;
    const first = await client.workflow.start('callbackSink', { taskQueue: worker.taskQueue, workflowId, args: [0] });
    await first.result();
    // The same business key started again (e.g. retryFailed): a new run of the same workflow id.
    const second = await client.workflow.start('callbackSink', { taskQueue: worker.taskQueue, workflowId, args: [1] });
    const late = await post(
      callbackUrlFor(receiver.url, secret, 'video', first),
      '{"id":"cgt-old","status":"succeeded"}',
    );
    expect(late).toEqual({ status: 202, text: JSON.stringify({ status: 'ignored (run closed)' }) });
    const own = await post(
      callbackUrlFor(receiver.url, secret, 'video', second),
      '{"id":"cgt-new","status":"running"}',
    );
    expect(own.status).toBe(202);
    expect(await second.result()).toEqual([{ kind: 'video', signal: { taskId: 'cgt-new', status: 'running' } }]);
  });

  it('refuses an expired URL (410) once its signature proved genuine, and a pushed-back expiry (401)', async () => {
    const client = await testClient();
    const handle = await client.workflow.start('callbackSink', {
      taskQueue: worker.taskQueue,
      workflowId: `sink-${randomUUID()}`,
      args: [1],
    });
    const expired = callbackUrlFor(receiver.url, secret, 'review', handle, Math.floor(Date.now() / 1000) - 1);
    expect((await post(expired, '{"task_id":"rv-1","status":"completed"}')).status).toBe(410);
    const pushedBack = expired.replace(/exp=\d+/, `exp=${Math.floor(Date.now() / 1000) + 3600}`);
    expect((await post(pushedBack, '{"task_id":"rv-1","status":"completed"}')).status).toBe(401);
    const valid = callbackUrlFor(receiver.url, secret, 'review', handle);
    expect((await post(valid, '{"task_id":"rv-2","status":"completed"}')).status).toBe(202);
    expect(await handle.result()).toEqual([{ kind: 'review', signal: { taskId: 'rv-2', status: 'completed' } }]);
  });

  it('answers a closed run and an unknown workflow 202 without a signal (only a genuine signature gets this far)', async () => {
    const client = await testClient();
    const closed = await client.workflow.start('callbackSink', {
      taskQueue: worker.taskQueue,
      workflowId: `sink-${randomUUID()}`,
      args: [0],
    });
    await closed.result();
    const a = await post(callbackUrlFor(receiver.url, secret, 'video', closed), '{"id":"x"}');
    const b = await post(
      callbackUrlFor(receiver.url, secret, 'video', {
        workflowId: `never-started-${randomUUID()}`,
        runId: randomUUID(),
      }),
      '{"id":"x"}',
    );
    expect(a).toEqual({ status: 202, text: JSON.stringify({ status: 'ignored (run closed)' }) });
    expect(b).toEqual({ status: 202, text: JSON.stringify({ status: 'ignored' }) });
  });
});
