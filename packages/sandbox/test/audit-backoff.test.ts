// The audit's backoff rule (review.backoff, spec Limits: 1 s, 2 s, 4 s after query network failures) on
// queries sent to the sandbox over HTTP: failed queries of one task retried sooner than the step are
// flagged; retries that wait 1 s, 2 s, then 4 s are not. Real waits: about 12 s in all.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUDIT_RULES, auditRequestLog, startSandbox, type Sandbox } from '../src/index.js';
import { Http, reviewHeaders, sleep } from './support/sandbox-http.js';

let sb: Sandbox;
const http = new Http();
beforeAll(async () => {
  sb = await startSandbox({ reviewDurationMs: 60_000 });
});
afterAll(async () => {
  await http.close();
  await sb.close();
});

async function reviewTask(): Promise<string> {
  const res = await http.call('POST', `${sb.reviewBaseUrl}/api/asset/upload/async`, {
    headers: reviewHeaders(sb),
    json: { images: ['https://cdn.example.com/backoff/a.jpg'] },
  });
  expect(res.status).toBe(202);
  return String(res.json.task_id);
}
/** One query; a reset connection is a failure the client sees as an error, not an answer. */
async function query(taskId: string): Promise<void> {
  await http
    .call('GET', `${sb.reviewBaseUrl}/api/task/${taskId}`, { headers: reviewHeaders(sb) })
    .catch(() => undefined);
}
/** Queries `taskId` once, then once after each wait; returns the log indexes of the backoff violations. */
async function queriesAfter(taskId: string, waitsMs: number[]): Promise<number[]> {
  await query(taskId);
  for (const ms of waitsMs) {
    await sleep(ms);
    await query(taskId);
  }
  const log = sb.requests();
  return auditRequestLog(log, { minQueryIntervalMs: 0 })
    .filter((v) => v.rule === AUDIT_RULES.backoff)
    .map((v) => log.findIndex((e) => e.seq === v.seq));
}

describe('review.backoff', () => {
  it('flags the retry after a third failure in a row that comes before 4 s (reset, 500, 503 without Retry-After)', async () => {
    sb.reset();
    const taskId = await reviewTask();
    sb.addFault({ operation: 'review.query', times: 1, fault: { type: 'reset' } });
    sb.addFault({ operation: 'review.query', times: 1, fault: { type: 'status', status: 500 } });
    sb.addFault({ operation: 'review.query', times: 1, fault: { type: 'status', status: 503 } });
    // Waits of 1.1 s and 2.1 s keep the first two steps; 1.1 s after the third failure breaks the 4 s one.
    expect(await queriesAfter(taskId, [1_100, 2_100, 1_100])).toEqual([4]);
  });

  it('flags a retry sooner than 1 s after one failure', async () => {
    sb.reset();
    const taskId = await reviewTask();
    sb.addFault({ operation: 'review.query', times: 1, fault: { type: 'status', status: 502 } });
    expect(await queriesAfter(taskId, [300])).toEqual([2]);
  });

  it('stays silent for retries 1 s, 2 s and 4 s apart, and for quick queries after an answer', async () => {
    sb.reset();
    const taskId = await reviewTask();
    sb.addFault({ operation: 'review.query', times: 3, fault: { type: 'reset' } });
    // Three failures (1, 2, 4 s after them), an answer, then a query 200 ms later: no failure to back off from.
    expect(await queriesAfter(taskId, [1_050, 2_050, 4_050, 200])).toEqual([]);
  });
});
