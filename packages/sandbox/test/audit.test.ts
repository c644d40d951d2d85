// auditRequestLog: each rule detected on a crafted log, none on a clean one, and on real sandbox logs.
import { describe, expect, it } from 'vitest';
import { auditRequestLog, startSandbox, type RequestLogEntry } from '../src/index.js';
import { AUDIT_RULES } from '../src/audit.js';
import { createBody, Http, reviewHeaders, sleep, videoHeaders, waitFor } from './support/sandbox-http.js';

const TRACK = 'a'.repeat(32);
const reviewH = { 'x-access-token': 't', 'x-track-id': TRACK, 'content-type': 'application/json' };
const videoH = { authorization: 'Bearer k', 'content-type': 'application/json' };
const SRC = 'https://cdn.example.com/alice.jpg';
const SIGNED = 'http://127.0.0.1:9/signed/ds-1/alice.jpg?sig=x&expires=1700000000000';

let seq = 0;
function e(partial: Partial<RequestLogEntry> & Pick<RequestLogEntry, 'operation' | 'at'>): RequestLogEntry {
  const service = partial.operation.startsWith('video') ? 'video' : 'review';
  return {
    seq: ++seq,
    service,
    method: 'GET',
    path: '/',
    headers: service === 'video' ? videoH : reviewH,
    body: undefined,
    status: 200,
    ...partial,
  };
}
const submitted = (at: number, taskId = 't1', urls = [SRC]) =>
  e({
    operation: 'review.submitAsync',
    at,
    method: 'POST',
    body: { images: urls },
    status: 202,
    response: { code: 202, task_id: taskId, status: 'pending' },
  });
const query = (at: number, response: unknown, extra: Partial<RequestLogEntry> = {}) =>
  e({ operation: 'review.query', at, taskId: 't1', response, ...extra });
const completed = (passed = true) => ({
  code: 200,
  task_id: 't1',
  status: 'completed',
  result: {
    items: [
      {
        source_url: SRC,
        asset_url: 'Asset://asset-1',
        downstream_final_url: SIGNED,
        submit_review_status: passed ? 1 : 0,
      },
    ],
  },
});
const createWith = (at: number, url: string, extra: Partial<RequestLogEntry> = {}) =>
  e({ operation: 'video.create', at, method: 'POST', body: createBody(url), ...extra });
const rules = (log: RequestLogEntry[], minQueryIntervalMs = 1_000) =>
  auditRequestLog(log, { minQueryIntervalMs }).map((v) => v.rule);

describe('auditRequestLog on crafted logs', () => {
  it('finds nothing in a clean review -> create flow', () => {
    const log = [
      submitted(0),
      query(1_000, { task_id: 't1', status: 'processing' }),
      query(2_000, { task_id: 't1', status: 'processing' }, { status: 429, retryAfter: '3', response: undefined }),
      query(5_000, completed()),
      createWith(5_100, 'Asset://asset-1'),
      e({ operation: 'video.get', at: 6_000, taskId: 'cgt-1' }),
      e({ operation: 'other', at: 6_100, service: 'review', headers: {}, path: '/signed/ds-1/alice.jpg' }),
    ];
    expect(auditRequestLog(log, { minQueryIntervalMs: 1_000 })).toEqual([]);
  });

  it('flags mixed auth headers on either service', () => {
    const log = [
      e({ operation: 'video.create', at: 0, headers: { ...videoH, 'x-access-token': 't' }, body: createBody() }),
      e({ operation: 'video.get', at: 0, headers: { ...videoH, 'x-track-id': TRACK } }),
      e({ operation: 'review.query', at: 0, taskId: 'x', headers: { ...reviewH, authorization: 'Bearer k' } }),
    ];
    const v = auditRequestLog(log, { minQueryIntervalMs: 0 });
    expect(v.map((x) => [x.rule, x.seq])).toEqual(log.map((l) => [AUDIT_RULES.mixedAuth, l.seq]));
  });

  it('flags missing auth and bad track ids', () => {
    expect(rules([e({ operation: 'video.get', at: 0, headers: {} })])).toEqual([AUDIT_RULES.missingAuth]);
    expect(rules([e({ operation: 'review.query', at: 0, taskId: 'x', headers: { 'x-track-id': TRACK } })])).toEqual([
      AUDIT_RULES.missingAuth,
    ]);
    for (const track of [undefined, '123e4567-e89b-12d3-a456-426614174000', 'abc', 'g'.repeat(32)]) {
      const headers: Record<string, string> = { 'x-access-token': 't' };
      if (track !== undefined) headers['x-track-id'] = track;
      expect(rules([e({ operation: 'review.submitAsync', at: 0, headers, body: { images: [SRC] } })])).toEqual([
        AUDIT_RULES.badTrackId,
      ]);
    }
  });

  it('flags review queries of the same task closer than the minimum interval, per task', () => {
    const log = [
      submitted(0, 't1'),
      submitted(0, 't2', ['https://cdn.example.com/b.jpg']),
      query(1_000, {}),
      e({ operation: 'review.query', at: 1_100, taskId: 't2' }), // another task: fine
      query(1_500, {}), // 500 ms after the previous query of t1
    ];
    const v = auditRequestLog(log, { minQueryIntervalMs: 1_000 });
    expect(v).toEqual([
      { rule: AUDIT_RULES.queryInterval, seq: log[4]!.seq, detail: expect.stringContaining('500 ms') },
    ]);
  });

  it('flags a query before a Retry-After (delta-seconds or HTTP-date) the sandbox answered for that task', () => {
    const at = Date.parse('2030-01-01T00:00:00Z');
    const log = [
      submitted(at),
      query(at + 1_000, undefined, { status: 429, retryAfter: '5' }),
      query(at + 3_000, undefined, { status: 503, retryAfter: new Date(at + 10_000).toUTCString() }),
      query(at + 8_000, {}),
      e({ operation: 'review.query', at: at + 8_100, taskId: 'other' }),
    ];
    const v = auditRequestLog(log, { minQueryIntervalMs: 1_000 });
    expect(v.map((x) => [x.rule, x.seq])).toEqual([
      [AUDIT_RULES.retryAfter, log[2]!.seq],
      [AUDIT_RULES.retryAfter, log[3]!.seq],
    ]);
  });

  it('holds the first query of a task to the Retry-After of an unfinished sync answer, from when it was answered', () => {
    const at = Date.parse('2030-01-01T00:00:00Z');
    const sync = (extra: Partial<RequestLogEntry> = {}) =>
      e({
        operation: 'review.submitSync',
        at,
        method: 'POST',
        body: { images: [SRC] },
        // The sync answer comes when the review ends or the wait bound passes: long after `at`.
        answeredAt: at + 1_500,
        response: { code: 200, task_id: 't1', status: 'processing' },
        retryAfter: '3',
        ...extra,
      });
    // 3 s after the request was received, but 1.5 s too early for the answer's Retry-After.
    const early = [sync(), query(at + 3_000, {})];
    expect(auditRequestLog(early, { minQueryIntervalMs: 0 })).toEqual([
      { rule: AUDIT_RULES.retryAfter, seq: early[1]!.seq, detail: expect.stringContaining('1500 ms') },
    ]);
    expect(rules([sync(), query(at + 4_500, {})], 0)).toEqual([]);
    expect(rules([sync({ retryAfter: undefined }), query(at + 1_600, {})], 0)).toEqual([]);
    expect(rules([sync({ clientGone: true }), query(at + 1_600, {})], 0)).toEqual([]);
  });

  it('flags a query after the task was reported cancelled, and a resubmit of its URLs', () => {
    const log = [
      submitted(0),
      query(1_000, { task_id: 't1', status: 'cancelled' }),
      query(2_000, {}),
      submitted(3_000, 't9'),
    ];
    // The same body again is also the same job's duplicate submit: it had its task.
    expect(rules(log)).toEqual([
      AUDIT_RULES.queryAfterCancel,
      AUDIT_RULES.resubmitAfterCancel,
      AUDIT_RULES.duplicateSubmit,
    ]);
  });

  it('does not hold the client to answers it never received (it had given up on a hanging request)', () => {
    const gone = { clientGone: true } as const;
    expect(rules([submitted(0), query(1_000, { task_id: 't1', status: 'cancelled' }, gone), query(2_000, {})])).toEqual(
      [],
    );
    expect(
      rules([submitted(0), query(1_000, undefined, { ...gone, status: 429, retryAfter: '30' }), query(2_000, {})]),
    ).toEqual([]);
    // Nor does an unseen approval let a create through.
    expect(rules([submitted(0), query(1_000, completed(), gone), createWith(1_100, 'Asset://asset-1')])).toEqual([
      AUDIT_RULES.assetNotApproved,
    ]);
  });

  it('flags a create using a downstream_final_url (seen in a result, or by its signed shape)', () => {
    const log = [
      submitted(0),
      query(1_000, completed()),
      createWith(1_100, SIGNED),
      createWith(1_200, 'https://other.example/signed/x/y.jpg?expires=1'),
    ];
    expect(rules(log)).toEqual([AUDIT_RULES.downstreamUrl, AUDIT_RULES.downstreamUrl]);
  });

  it('flags a create with an Asset:// not approved: rejected, or never seen in a completed result', () => {
    expect(rules([submitted(0), query(1_000, completed(false)), createWith(1_100, 'Asset://asset-1')])).toEqual([
      AUDIT_RULES.assetNotApproved,
    ]);
    expect(rules([createWith(0, 'Asset://asset-made-up')])).toEqual([AUDIT_RULES.assetNotApproved]);
    // The create must come after the approval was seen.
    expect(rules([submitted(0), createWith(500, 'Asset://asset-1'), query(1_000, completed())])).toEqual([
      AUDIT_RULES.assetNotApproved,
    ]);
  });

  it('backoff: a Retry-After rules the retry instead of the step; an unseen failure counts from its request', () => {
    const failed = (at: number, extra: Partial<RequestLogEntry> = {}) =>
      query(at, undefined, { status: 503, answeredAt: at + 10, ...extra });
    const backoff = (log: RequestLogEntry[]) =>
      auditRequestLog(log, { minQueryIntervalMs: 0 })
        .filter((v) => v.rule === AUDIT_RULES.backoff)
        .map((v) => v.seq);
    // 503 with Retry-After 0: not a step of the backoff; then a failure without one: 1 s after its answer.
    const ruled = [failed(0, { retryAfter: '0' }), failed(20), query(1_030, { task_id: 't1', status: 'processing' })];
    expect(backoff(ruled)).toEqual([]);
    const early = [failed(0), query(900, { task_id: 't1', status: 'processing' })];
    expect(backoff(early)).toEqual([early[1]!.seq]);
    // A hang the client gave up on (its time-out came later than the request): 1 s from the request is enough.
    const gone = [failed(0, { status: 200, clientGone: true, answeredAt: 5_000 }), query(1_000, { task_id: 't1' })];
    expect(backoff(gone)).toEqual([]);
  });

  it('reads an Asset:// address whatever the case of its scheme, as the services do (RFC 3986 3.1)', () => {
    expect(rules([submitted(0), query(1_000, completed(false)), createWith(1_100, 'asset://asset-1')])).toEqual([
      AUDIT_RULES.assetNotApproved,
    ]);
    expect(rules([createWith(0, 'ASSET://asset-made-up')])).toEqual([AUDIT_RULES.assetNotApproved]);
    expect(rules([submitted(0), query(1_000, completed()), createWith(1_100, 'asset://asset-1')])).toEqual([]);
  });

  it('flags a create with a media URL whose review was not seen completed', () => {
    expect(
      rules([submitted(0), query(1_000, { task_id: 't1', status: 'processing' }), createWith(1_100, SRC)]),
    ).toEqual([AUDIT_RULES.createBeforeReview]);
    expect(rules([submitted(0), query(1_000, { task_id: 't1', status: 'failed' }), createWith(1_100, SRC)])).toEqual([
      AUDIT_RULES.createBeforeReview,
    ]);
    // A URL never submitted for review is not this rule's business.
    expect(rules([createWith(0, 'https://cdn.example.com/scenery.jpg')])).toEqual([]);
  });

  it('holds the other entry points to the same rules: bearer key, no downstream URL, no unapproved asset, wherever the URL sits', () => {
    const gw = (gateway: RequestLogEntry['gateway'], body: unknown, extra: Partial<RequestLogEntry> = {}) =>
      e({
        operation: 'other',
        service: 'video',
        headers: videoH,
        gateway,
        at: 2_000,
        method: 'POST',
        path: '/v1/video/generations',
        body,
        ...extra,
      });
    const clean = [submitted(0), query(1_000, completed())];
    expect(
      rules([
        ...clean,
        gw('create', { prompt: 'p', images: ['Asset://asset-1'], metadata: { ref: 'https://cdn.example.com/x.jpg' } }),
      ]),
    ).toEqual([]);
    expect(rules([...clean, gw('create', { prompt: 'p', input: { reference: { url: SIGNED } } })])).toEqual([
      AUDIT_RULES.downstreamUrl,
    ]);
    expect(
      rules([...clean, gw('sync', { messages: [{ content: [{ image_url: { url: 'Asset://asset-never-seen' } }] }] })]),
    ).toEqual([AUDIT_RULES.assetNotApproved]);
    expect(rules([submitted(0), gw('create', { prompt: 'p', image: SRC })])).toEqual([AUDIT_RULES.createBeforeReview]);
    expect(rules([gw('query', undefined, { method: 'GET', headers: {} })])).toEqual([AUDIT_RULES.missingAuth]);
    expect(rules([gw('create', { prompt: 'p' }, { headers: { ...videoH, 'x-access-token': 't' } })])).toEqual([
      AUDIT_RULES.mixedAuth,
    ]);
    // Result files are public downloads; a query's answer is not a request's content.
    expect(
      rules([
        gw('file', undefined, { method: 'GET', headers: {} }),
        gw('query', undefined, { method: 'GET', response: { url: SIGNED } }),
      ]),
    ).toEqual([]);
  });
});

describe('auditRequestLog on real sandbox logs', () => {
  it('is clean for a well-behaved client and flags a careless one', async () => {
    const sb = await startSandbox({ reviewDurationMs: 100, videoDurationMs: 100 });
    const http = new Http();
    try {
      const submit = await http.call('POST', `${sb.reviewBaseUrl}/api/asset/upload/async`, {
        headers: reviewHeaders(sb),
        json: { images: ['https://cdn.example.com/ok.jpg'] },
      });
      const taskId = submit.json.task_id as string;
      const final = await waitFor(async () => {
        await sleep(60);
        const q = await http.call('GET', `${sb.reviewBaseUrl}/api/task/${taskId}`, { headers: reviewHeaders(sb) });
        return q.json.status === 'completed' ? q.json : undefined;
      });
      const item = final.result.items[0];
      await http.call('POST', `${sb.videoBaseUrl}/v1/task/create`, {
        headers: videoHeaders(sb),
        json: createBody(item.asset_url),
      });
      expect(auditRequestLog(sb.requests(), { minQueryIntervalMs: 50 })).toEqual([]);

      // Careless: hammering the query, mixing headers, creating from the signed URL.
      await http.call('GET', `${sb.reviewBaseUrl}/api/task/${taskId}`, { headers: reviewHeaders(sb) });
      await http.call('GET', `${sb.reviewBaseUrl}/api/task/${taskId}`, {
        headers: { ...reviewHeaders(sb), authorization: `Bearer ${sb.apiKey}` },
      });
      await http.call('POST', `${sb.videoBaseUrl}/v1/task/create`, {
        headers: videoHeaders(sb),
        json: createBody(item.downstream_final_url),
      });
      const found = new Set(auditRequestLog(sb.requests(), { minQueryIntervalMs: 50 }).map((v) => v.rule));
      expect(found).toEqual(new Set([AUDIT_RULES.queryInterval, AUDIT_RULES.mixedAuth, AUDIT_RULES.downstreamUrl]));

      // The other entry points are logged by kind of call and audited too.
      const before = sb.requests().length;
      const gateway = `${sb.videoBaseUrl}/v1/video/generations`;
      const made = await http.call('POST', gateway, {
        headers: videoHeaders(sb),
        json: { model: 'm', prompt: 'p', image: item.downstream_final_url },
      });
      await http.call('GET', `${gateway}/${made.json.id ?? made.json.task_id ?? 'x'}`, {
        headers: { 'content-type': 'application/json' },
      });
      const gatewayEntries = sb.requests().slice(before);
      expect(gatewayEntries.map((g) => [g.operation, g.gateway])).toEqual([
        ['other', 'create'],
        ['other', 'query'],
      ]);
      const seqs = new Set(gatewayEntries.map((g) => g.seq));
      const gatewayRules = auditRequestLog(sb.requests(), { minQueryIntervalMs: 50 })
        .filter((v) => seqs.has(v.seq))
        .map((v) => v.rule);
      expect(gatewayRules).toEqual([AUDIT_RULES.downstreamUrl, AUDIT_RULES.missingAuth]);
    } finally {
      await http.close();
      await sb.close();
    }
  });
});
