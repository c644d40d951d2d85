// The transport's instrumentation hook: one report per call, with the bounded facts only (service,
// operation, method, status, outcome, duration), for a success, an error status, a malformed body, a
// time-out and a refused connection. Both the per-client option and the process-wide observer hear it.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { observeServiceRequests, ServiceHttp, type RequestInfo } from '../../src/services/http.js';

let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/ok') res.writeHead(200, { 'content-type': 'application/json' }).end('{"id":"t1"}');
    else if (req.url === '/fail') res.writeHead(500).end('{"error":"x"}');
    else if (req.url === '/html') res.writeHead(200).end('<html>');
    // '/slow': never answers within the client's deadline
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

describe('ServiceHttp request observers', () => {
  it('reports every call once, whatever its end', async () => {
    const own: RequestInfo[] = [];
    const global: RequestInfo[] = [];
    const stop = observeServiceRequests((i) => global.push(i));
    const http = new ServiceHttp({
      service: 'video',
      baseUrl: base,
      timeoutMs: 300,
      secrets: ['k'],
      onRequest: (i) => {
        own.push(i);
        throw new Error('an observer failure never fails the call');
      },
    });
    const send = (path: string) =>
      http.send({ operation: 'video.get', method: 'GET', path, headers: {} }).then(
        () => 'ok',
        () => 'error',
      );
    expect(await send('/ok')).toBe('ok');
    expect(await send('/fail')).toBe('error');
    expect(await send('/html')).toBe('error');
    expect(await send('/slow')).toBe('error');
    await http.close();
    const refused = new ServiceHttp({ service: 'review', baseUrl: 'http://127.0.0.1:9', timeoutMs: 300, secrets: [] });
    await refused.send({ operation: 'review.query', method: 'POST', path: '/q', headers: {} }).catch(() => undefined);
    await refused.close();
    stop();

    expect(own.map((i) => [i.status, i.outcome])).toEqual([
      [200, 'response'],
      [500, 'response'],
      [200, 'malformed'],
      [undefined, 'timeout'],
    ]);
    expect(global.map((i) => `${i.service} ${i.operation} ${i.outcome}`)).toEqual([
      'video video.get response',
      'video video.get response',
      'video video.get malformed',
      'video video.get timeout',
      'review review.query network',
    ]);
    for (const i of own) {
      expect(Object.keys(i).sort()).toEqual(['durationMs', 'method', 'operation', 'outcome', 'service', 'status']);
      expect(i.durationMs).toBeGreaterThanOrEqual(0);
    }
    expect(own[3]!.durationMs).toBeGreaterThanOrEqual(250);
  });
});
