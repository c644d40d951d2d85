// The audit's duplicate rules (video.duplicate-create, review.duplicate-submit) on request sequences sent to
// the sandbox over HTTP: a create or submit sent again by the same job after one that made a task it saw,
// or after an ambiguous answer without the job's opt-in, is flagged; a retry after a clear refusal, an
// opted-in resubmit, and two jobs with the same prompt or media are not.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AUDIT_RULES, auditRequestLog, startSandbox, type RequestLogEntry, type Sandbox } from '../src/index.js';
import { createBody, Http, reviewHeaders, videoHeaders } from './support/sandbox-http.js';

let sb: Sandbox;
const http = new Http();
beforeAll(async () => {
  // Callback addresses on a closed loopback port: deliveries fail at once, the rules do not look at them.
  sb = await startSandbox({ reviewDurationMs: 60_000, videoDurationMs: 60_000, allowPrivateUrls: true });
});
afterAll(async () => {
  await http.close();
  await sb.close();
});
beforeEach(() => sb.reset());

const hook = (job: string) => `http://127.0.0.1:9/callbacks/video/${job}?run=r1&sig=s`;
const create = (body: unknown) =>
  http.call('POST', `${sb.videoBaseUrl}/v1/task/create`, { headers: videoHeaders(sb), json: body, timeoutMs: 5_000 });
const submit = (body: unknown, mode: 'async' | 'sync' = 'async') =>
  http.call('POST', `${sb.reviewBaseUrl}/api/asset/upload/${mode}`, { headers: reviewHeaders(sb), json: body });
const reset = async (call: Promise<unknown>) => expect(call).rejects.toThrow();

const DUPLICATE_RULES: string[] = [AUDIT_RULES.duplicateCreate, AUDIT_RULES.duplicateSubmit];
/** The duplicate violations of the log: [rule, index of the flagged request in the log]. */
function duplicates(
  opts: { jobOf?: (e: RequestLogEntry) => string | undefined; optedIn?: (e: RequestLogEntry) => boolean } = {},
) {
  const log = sb.requests();
  return auditRequestLog(log, { minQueryIntervalMs: 0, ...opts })
    .filter((v) => DUPLICATE_RULES.includes(v.rule))
    .map((v) => [v.rule, log.findIndex((e) => e.seq === v.seq)]);
}

describe('video.duplicate-create', () => {
  it('flags a create sent again after its answer gave the task id', async () => {
    const body = createBody(undefined, { callback_url: hook('job-1') });
    expect((await create(body)).status).toBe(200);
    expect((await create(body)).status).toBe(200);
    expect(sb.videoTasks()).toHaveLength(2);
    expect(duplicates()).toEqual([[AUDIT_RULES.duplicateCreate, 1]]);
    // The detail names the earlier answer and its task.
    const [v] = auditRequestLog(sb.requests(), { minQueryIntervalMs: 0 });
    expect(v!.detail).toContain(`gave it task ${sb.videoTasks()[0]!.id}`);
  });

  it('flags a blind resubmit after a 500 or a reset, unless the job opted in', async () => {
    const body = createBody(undefined, { callback_url: hook('job-2') });
    sb.addFault({ operation: 'video.create', times: 1, fault: { type: 'status', status: 500, commit: true } });
    expect((await create(body)).status).toBe(500);
    expect((await create(body)).status).toBe(200);
    expect(duplicates()).toEqual([[AUDIT_RULES.duplicateCreate, 1]]);
    expect(duplicates({ optedIn: () => true })).toEqual([]);

    sb.reset();
    sb.addFault({ operation: 'video.create', times: 1, fault: { type: 'reset', commit: true } });
    await reset(create(body));
    expect((await create(body)).status).toBe(200);
    expect(duplicates()).toEqual([[AUDIT_RULES.duplicateCreate, 1]]);
  });

  it('stays silent for a create sent again after a clear refusal (429, 503, 400): nothing was made', async () => {
    const body = createBody(undefined, { callback_url: hook('job-3') });
    sb.addFault({ operation: 'video.create', times: 1, fault: { type: 'status', status: 429 } });
    sb.addFault({ operation: 'video.create', times: 1, fault: { type: 'status', status: 503 } });
    expect((await create(body)).status).toBe(429);
    expect((await create(body)).status).toBe(503);
    expect((await create({ ...body, ratio: '16/9' })).status).toBe(400);
    expect((await create(body)).status).toBe(200);
    expect(duplicates()).toEqual([]);
  });

  it('stays silent for two jobs with the same prompt: their callback addresses, or jobOf, tell them apart', async () => {
    expect((await create(createBody(undefined, { callback_url: hook('job-a') }))).status).toBe(200);
    expect((await create(createBody(undefined, { callback_url: hook('job-b') }))).status).toBe(200);
    expect(duplicates()).toEqual([]);

    // Polling jobs send the same body: only the caller knows they are two jobs.
    sb.reset();
    expect((await create(createBody())).status).toBe(200);
    expect((await create(createBody())).status).toBe(200);
    expect(duplicates()).toEqual([[AUDIT_RULES.duplicateCreate, 1]]);
    const log = sb.requests();
    expect(duplicates({ jobOf: (e) => `job-${log.findIndex((x) => x.seq === e.seq)}` })).toEqual([]);
  });
});

describe('review.duplicate-submit', () => {
  const jpg = (name: string) => `https://cdn.example.com/dup/${name}.jpg`;
  const cbReview = 'http://127.0.0.1:9/callbacks/review/job-r?run=r1&sig=s';

  it('flags the same media submitted again (async or sync) after the task id came back', async () => {
    const body = { images: [jpg('a')], callback_url: cbReview };
    expect((await submit(body)).status).toBe(202);
    expect((await submit(body)).status).toBe(202);
    expect(duplicates()).toEqual([[AUDIT_RULES.duplicateSubmit, 1]]);

    sb.reset();
    sb.setReviewTaskOutcome({ url: jpg('b') }, 'completed', 50);
    expect((await submit({ images: [jpg('b')] }, 'sync')).status).toBe(200);
    expect((await submit({ images: [jpg('b')] })).status).toBe(202);
    expect(duplicates()).toEqual([[AUDIT_RULES.duplicateSubmit, 1]]);
  });

  it('with jobOf: any URL the job already submitted counts, other batches of the job do not', async () => {
    const jobOf = () => 'job-r';
    expect((await submit({ images: [jpg('c'), jpg('d')] })).status).toBe(202);
    expect((await submit({ images: ['https://cdn.example.com/dup/e.mp4'], asset_type: 'Video' })).status).toBe(202);
    expect(duplicates({ jobOf })).toEqual([]);
    expect((await submit({ images: [jpg('d')] })).status).toBe(202);
    expect(duplicates({ jobOf })).toEqual([[AUDIT_RULES.duplicateSubmit, 2]]);
    // Another job may submit the same media.
    expect(duplicates({ jobOf: (e) => `job-${e.seq}` })).toEqual([]);
  });

  it('flags a resubmit after an ambiguous answer unless the job opted in; silent after a 503', async () => {
    const body = { images: [jpg('f')], callback_url: cbReview };
    sb.addFault({ operation: 'review.submitAsync', times: 1, fault: { type: 'status', status: 503 } });
    sb.addFault({ operation: 'review.submitAsync', times: 1, fault: { type: 'malformed', commit: true } });
    expect((await submit(body)).status).toBe(503);
    expect((await submit(body)).status).toBe(202); // unreadable: no task id
    expect((await submit(body)).status).toBe(202);
    expect(duplicates()).toEqual([[AUDIT_RULES.duplicateSubmit, 2]]);
    expect(duplicates({ optedIn: () => true })).toEqual([]);
  });
});
