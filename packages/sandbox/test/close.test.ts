// close() leaves nothing behind: servers and sockets end, task timers and held/delayed callbacks stop
// (the sandbox's timers are unref'd, so they are proven stopped by nothing happening afterwards).
import { once } from 'node:events';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { startSandbox } from '../src/index.js';
import {
  createBody,
  Http,
  reviewHeaders,
  sleep,
  startReceiver,
  videoHeaders,
  waitFor,
} from './support/sandbox-http.js';

const count = (kind: string) => process.getActiveResourcesInfo().filter((h) => h === kind).length;

describe('close()', () => {
  it('stops servers, task timers, delayed callbacks and hanging requests', async () => {
    const receiver = await startReceiver();
    const http = new Http();
    const servers = count('TCPServerWrap');

    const sb = await startSandbox({ reviewDurationMs: 20_000, videoDurationMs: 20_000, allowPrivateUrls: true });
    expect(count('TCPServerWrap')).toBe(servers + 2);
    sb.setReviewTaskOutcome({ url: 'https://cdn.example.com/quick.jpg' }, 'completed', 50);
    sb.setCallbackFault({ kind: 'review', mode: 'delay', delayMs: 300 });
    sb.addFault({ operation: 'video.get', fault: { type: 'hang', ms: 60_000 } });
    await http.call('POST', `${sb.reviewBaseUrl}/api/asset/upload/async`, {
      headers: reviewHeaders(sb),
      json: { images: ['https://cdn.example.com/quick.jpg'], callback_url: `${receiver.url}/r` },
    });
    const { json } = await http.call('POST', `${sb.videoBaseUrl}/v1/task/create`, {
      headers: videoHeaders(sb),
      json: createBody(undefined, { callback_url: `${receiver.url}/v` }),
    });
    const hanging = http
      .call('GET', `${sb.videoBaseUrl}/v1/task/get/${json.id}`, { headers: videoHeaders(sb) })
      .catch(() => 'closed');
    const sync = http
      .call('POST', `${sb.reviewBaseUrl}/api/asset/upload/sync`, {
        headers: reviewHeaders(sb),
        json: { images: ['https://cdn.example.com/b.jpg'] },
      })
      .catch(() => 'closed');
    // The quick review ends; its callback is now held by the delay. Both requests left in flight must have
    // arrived before the close (under load they can lag behind the quick review).
    await waitFor(() => sb.reviewTasks()[0]?.status === 'completed', 2_000, 'the quick review');
    await waitFor(
      () => sb.reviewTasks().length === 2 && sb.requests().some((r) => r.operation === 'video.get'),
      5_000,
      'the sync submit and the hanging get',
    );

    await sb.close();
    await sb.close(); // idempotent
    const statuses = () => [...sb.reviewTasks(), ...sb.videoTasks()].map((t) => t.status);
    const atClose = statuses();
    expect(await hanging).toBe('closed');
    expect(await sync).toBe('closed');
    await waitFor(() => count('TCPServerWrap') === servers, 1_000, 'both listening sockets closed');

    await sleep(700); // past the callback delay and the next task steps
    expect(receiver.received).toEqual([]);
    expect(statuses()).toEqual(atClose);
    expect(atClose).toEqual(['completed', 'pending', 'queued']);
    await http.close();
    await receiver.close();
  });

  it('aborts a callback in flight instead of waiting for its time-out', async () => {
    // A receiver that never answers: it keeps the callback's request, and sees its connection end.
    const arrived: IncomingMessage[] = [];
    const silent = createServer((req) => void arrived.push(req));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/cb`;
    const http = new Http();
    // A callback time-out longer than the test may run: a close() that waited for it would never resolve
    // here, so the test would fail on its own time-out rather than on a measured duration.
    const sb = await startSandbox({ videoDurationMs: 40, callbackTimeoutMs: 600_000, allowPrivateUrls: true });
    await http.call('POST', `${sb.videoBaseUrl}/v1/task/create`, {
      headers: videoHeaders(sb),
      json: createBody(undefined, { callback_url: url }),
    });
    await waitFor(() => sb.videoTasks()[0]?.status === 'succeeded', 2_000, 'the task to end');
    // Both callbacks (running, succeeded) are in flight: the receiver holds their requests unanswered.
    await waitFor(() => arrived.length === 2, 2_000, 'both callbacks to reach the receiver');
    const dropped = arrived.map((req) => once(req.socket, 'close'));
    await sb.close();
    await Promise.all(dropped); // the sandbox ended the callbacks' connections
    expect(arrived).toHaveLength(2);
    // Aborted, not failed: a delivery that errors or times out is logged (`error`), an aborted one is not.
    expect(sb.callbacks()).toEqual([]);
    await http.close();
    await new Promise<void>((resolve) => {
      silent.close(() => resolve());
      silent.closeAllConnections();
    });
  });
});
