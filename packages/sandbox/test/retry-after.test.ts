// Retry-After on a 200: the sandbox sends it on answers of a review task still under way when configured,
// logs it, and the audit holds the next query of that task to it (as it does for a 429 or 503).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditRequestLog, startSandbox, type RequestLogEntry, type Sandbox } from '../src/index.js';
import { AUDIT_RULES } from '../src/audit.js';
import { Http, reviewHeaders, sleep, waitFor } from './support/sandbox-http.js';

const TRACK = 'a'.repeat(32);
const headers = { 'x-access-token': 't', 'x-track-id': TRACK };

let seq = 0;
const entry = (at: number, extra: Partial<RequestLogEntry>): RequestLogEntry => ({
  seq: ++seq,
  at,
  service: 'review',
  operation: 'review.query',
  method: 'GET',
  path: '/api/task/t1',
  headers,
  body: undefined,
  status: 200,
  taskId: 't1',
  ...extra,
});
const processing = { task_id: 't1', status: 'processing' };
const retryAfterFlags = (log: RequestLogEntry[]) =>
  auditRequestLog(log, { minQueryIntervalMs: 0 })
    .filter((v) => v.rule === AUDIT_RULES.retryAfter)
    .map((v) => v.seq);

describe('audit of a 200 with Retry-After (crafted logs)', () => {
  it('flags a query earlier than a delta-seconds Retry-After allows, not one that waited', () => {
    const early = [entry(0, { response: processing, retryAfter: '2' }), entry(1_500, { response: processing })];
    expect(retryAfterFlags(early)).toEqual([early[1]!.seq]);
    const waited = [entry(0, { response: processing, retryAfter: '2' }), entry(2_000, { response: processing })];
    expect(retryAfterFlags(waited)).toEqual([]);
  });

  it('reads the HTTP-date form, and only for the task it was answered for', () => {
    const at = Date.parse('2030-01-01T00:00:00Z');
    const log = [
      entry(at, { response: processing, retryAfter: new Date(at + 5_000).toUTCString() }),
      entry(at + 1_000, { taskId: 't2', path: '/api/task/t2' }),
      entry(at + 4_000, { response: processing }),
      entry(at + 5_000, { response: processing }),
    ];
    expect(retryAfterFlags(log)).toEqual([log[2]!.seq]);
  });

  it('ignores a Retry-After the client never received', () => {
    const log = [
      entry(0, { response: processing, retryAfter: '30', clientGone: true }),
      entry(1_000, { response: processing }),
    ];
    expect(retryAfterFlags(log)).toEqual([]);
  });
});

describe('sandbox with reviewProcessingRetryAfter', () => {
  let sb: Sandbox;
  const http = new Http();
  beforeAll(async () => {
    // One URL: 20% pending, then one step to the final state at 1.5 s.
    sb = await startSandbox({ reviewDurationMs: 1_500, reviewProcessingRetryAfter: '1' });
  });
  afterAll(async () => {
    await http.close();
    await sb.close();
  });
  const query = (taskId: string) =>
    http.call('GET', `${sb.reviewBaseUrl}/api/task/${taskId}`, { headers: reviewHeaders(sb) });

  it('sends and logs it on answers of a task under way, not on the final one; the audit flags only the early query', async () => {
    const submit = await http.call('POST', `${sb.reviewBaseUrl}/api/asset/upload/async`, {
      headers: reviewHeaders(sb),
      json: { images: ['https://cdn.example.com/paced.jpg'] },
    });
    expect(submit.status).toBe(202);
    expect(submit.headers['retry-after']).toBeUndefined();
    const taskId = submit.json.task_id as string;

    const first = await query(taskId);
    expect(first.status).toBe(200);
    expect(['pending', 'processing']).toContain(first.json.status);
    expect(first.headers['retry-after']).toBe('1');
    const early = await query(taskId); // well within the second it was asked to wait
    await sleep(1_050);
    const waited = await query(taskId);
    expect(waited.headers['retry-after']).toBe(waited.json.status === 'completed' ? undefined : '1');
    await sleep(1_050);
    const final = await waitFor(
      async () => {
        const q = await query(taskId);
        return q.json.status === 'completed' ? q : (await sleep(1_050), undefined);
      },
      10_000,
      'the review to complete',
    );
    expect(final.headers['retry-after']).toBeUndefined();

    const log = sb.requests().filter((e) => e.operation === 'review.query');
    expect(log[0]).toMatchObject({ status: 200, retryAfter: '1', taskId });
    expect(log.at(-1)!.retryAfter).toBeUndefined();
    expect(early.status).toBe(200);
    const flagged = auditRequestLog(sb.requests(), { minQueryIntervalMs: 0 });
    expect(flagged).toEqual([
      {
        rule: AUDIT_RULES.retryAfter,
        seq: log[1]!.seq,
        detail: expect.stringContaining('before the Retry-After allowed it'),
      },
    ]);
  });
});

describe('sandbox with reviewProcessingRetryAfter: the sync submit', () => {
  let sb: Sandbox;
  const http = new Http();
  beforeAll(async () => {
    // The sync submit answers after 300 ms at most, before a 2 s review ends.
    sb = await startSandbox({ reviewDurationMs: 2_000, syncReviewWaitMs: 300, reviewProcessingRetryAfter: '2' });
  });
  afterAll(async () => {
    await http.close();
    await sb.close();
  });
  const syncSubmit = (url: string) =>
    http.call('POST', `${sb.reviewBaseUrl}/api/asset/upload/sync`, {
      headers: reviewHeaders(sb),
      json: { images: [url] },
    });

  it('an unfinished answer carries it, logged with when it was answered; a final one does not', async () => {
    const unfinished = await syncSubmit('https://cdn.example.com/sync-paced.jpg');
    expect(unfinished.status).toBe(200);
    expect(['pending', 'processing']).toContain(unfinished.json.status);
    expect(unfinished.headers['retry-after']).toBe('2');
    const [entry] = sb.requests().filter((e) => e.operation === 'review.submitSync');
    expect(entry).toMatchObject({ status: 200, retryAfter: '2', taskId: unfinished.json.task_id });
    // Answered when the wait bound passed, not when received.
    expect(entry!.answeredAt! - entry!.at).toBeGreaterThanOrEqual(300 - 1);

    sb.setReviewTaskOutcome({ url: 'https://cdn.example.com/sync-quick.jpg' }, 'completed', 100);
    const final = await syncSubmit('https://cdn.example.com/sync-quick.jpg');
    expect(final.json.status).toBe('completed');
    expect(final.headers['retry-after']).toBeUndefined();
  });
});
