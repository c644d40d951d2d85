// The Python caller of docs/starting-jobs.md (examples/python/caller.py), run as a subprocess with
// Temporal's Python SDK (pinned, installed from PyPI into .tmp/ by scripts/python-caller.mjs) against the
// dev server: it starts ReviewThenGenerate by name with plain JSON, polls `progress`, and prints the
// result, a typed failure with its details, or a cancellation, as JSON. Encryption off (our in-process
// worker) and on (our worker process with PAYLOAD_ENCRYPTION_KEYS; the caller's own codec in Python).
// What it prints validates against the shipped JSON Schemas (ajv).
import { execFile, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { newPayloadKey } from '../../src/codec/keys.js';
import type { ReviewThenGenerateInput } from '../../src/workflows/input.js';
import { startEncryptedStack, type EncryptedStack } from '../codec/encrypted-stack.js';
import { imageJob, withStack, type Stack } from '../support/stack.js';
import { temporalAddress, testClient } from '../support/temporal.js';

const caller = fileURLToPath(new URL('../../examples/python/caller.py', import.meta.url));
const schemas = fileURLToPath(new URL('../../schemas/', import.meta.url));
const tag = randomUUID().slice(0, 8);
const urlOf = (name: string) => `https://cdn.example.com/people/py-${name}-${tag}.jpg`;

interface CallerOutput {
  workflowId: string;
  stages: string[];
  lastProgress: unknown;
  outcome: 'succeeded' | 'failed' | 'cancelled';
  result?: { taskId: string; state: string; assets: Array<{ sourceUrl: string }> };
  failure?: { type: string; message: string; details: unknown[] };
}

const ajv = new Ajv2020({ strict: true, allErrors: true });
function expectValid(schema: string, value: unknown): void {
  const validate =
    ajv.getSchema(schema) ??
    ajv.compile({ ...(JSON.parse(readFileSync(`${schemas}${schema}`, 'utf8')) as object), $id: schema });
  expect(validate(value), `${schema}: ${ajv.errorsText(validate.errors)}`).toBe(true);
}

let python: string;
beforeAll(async () => {
  const script = fileURLToPath(new URL('../../scripts/python-caller.mjs', import.meta.url));
  const { stdout } = await promisify(execFile)(process.execPath, [script, '--print-path'], { timeout: 900_000 });
  python = stdout.trim();
}, 900_000);

function runCaller(
  env: Record<string, string>,
  input: ReviewThenGenerateInput,
  key: string,
  extra: string[] = [],
): Promise<CallerOutput> {
  return new Promise((resolve, reject) => {
    const child = spawn(python, [caller, JSON.stringify(input), '--key', key, ...extra], {
      // No __pycache__ beside the example (it ships in the package).
      env: { PATH: process.env.PATH ?? '', PYTHONDONTWRITEBYTECODE: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (code !== 0) reject(new Error(`caller.py exited ${code}\n${stdout.slice(-2000)}\n${stderr.slice(-4000)}`));
      else resolve(JSON.parse(stdout.trim().split('\n').at(-1)!) as CallerOutput);
    });
  });
}

function job(name: string, callbacks = true): ReviewThenGenerateInput {
  const input = imageJob(urlOf(name), { callbacks });
  input.task.content = [
    { type: 'text', text: `A person walks along the beach (py ${name} ${tag})` },
    { type: 'image_url', image_url: { url: urlOf(name) }, role: 'reference_image' },
  ];
  return input;
}

/** The caller's outcomes every test checks: a result, a ReviewRejected failure with its items. */
async function succeedsAndFailsTyped(env: Record<string, string>, name: string, rejectUrl: (url: string) => void) {
  const ok = await runCaller(env, job(`${name}-ok`), `py-${name}-ok-${tag}`);
  expect(ok.outcome).toBe('succeeded');
  expect(ok.workflowId).toBe(`py-${name}-ok-${tag}`);
  expect(ok.result).toMatchObject({ state: 'succeeded', assets: [{ sourceUrl: urlOf(`${name}-ok`) }] });
  expect(ok.stages[0]).toBe('reviewing');
  expectValid('job-result.schema.json', ok.result);
  expectValid('job-progress.schema.json', ok.lastProgress);

  rejectUrl(urlOf(`${name}-rejected`));
  const rejected = await runCaller(env, job(`${name}-rejected`), `py-${name}-rejected-${tag}`);
  expect(rejected.outcome).toBe('failed');
  expect(rejected.failure).toMatchObject({
    type: 'ReviewRejected',
    details: [{ items: [{ url: urlOf(`${name}-rejected`), error_code: 'E_REAL_PERSON' }] }],
  });
  expect(rejected.failure!.message).toContain('review rejected 1 item(s)');
  expectValid('failure-details/ReviewRejected.schema.json', rejected.failure!.details[0]);
}

const verdict = { passed: false, errorCode: 'E_REAL_PERSON', errorMessage: 'a real person was detected' };

describe('the Python caller, encryption off', () => {
  let stack: Stack;
  withStack({ sandbox: { reviewDurationMs: 300, videoDurationMs: 600 } }, (s) => (stack = s));
  const env = () => ({
    TEMPORAL_ADDRESS: temporalAddress(),
    TEMPORAL_NAMESPACE: inject('temporalNamespace'),
    TEMPORAL_TASK_QUEUE: stack.taskQueue,
  });

  it('starts a job by name, polls progress, reads the result and a typed failure with its details', async () => {
    await succeedsAndFailsTyped(env(), 'plain', (url) => stack.sandbox.setReviewVerdict(url, verdict));
  });

  it('cancels a job while it generates: the run ends cancelled, its video task cancelled', async () => {
    stack.sandbox.setVideoOutcome({ promptIncludes: `py plain-cancel ${tag}` }, 'succeeded', 60_000);
    const out = await runCaller(env(), job('plain-cancel', false), `py-plain-cancel-${tag}`, [
      '--cancel-at-stage',
      'generating',
    ]);
    expect(out.outcome).toBe('cancelled');
    expect(out.stages).toContain('generating');
    const cancels = stack.sandbox.requests().filter((r) => r.operation === 'video.cancel');
    expect(cancels.length).toBeGreaterThanOrEqual(1);
  });
});

describe('the Python caller, encryption on (its own AES-256-GCM codec, the keys of the worker)', () => {
  const KEYS = `py-1:${newPayloadKey()}`;
  let stack: EncryptedStack;
  beforeAll(async () => {
    stack = await startEncryptedStack(KEYS, { reviewDurationMs: 300, videoDurationMs: 600 });
    await stack.worker(KEYS);
  });
  afterAll(async () => {
    await stack?.stop();
  });
  const env = () => ({
    TEMPORAL_ADDRESS: temporalAddress(),
    TEMPORAL_NAMESPACE: inject('temporalNamespace'),
    TEMPORAL_TASK_QUEUE: stack.taskQueue,
    PAYLOAD_ENCRYPTION_KEYS: KEYS,
  });

  it('reads the result and the typed failure (message included) of runs whose payloads are encrypted', async () => {
    await succeedsAndFailsTyped(env(), 'enc', (url) => stack.sandbox.setReviewVerdict(url, verdict));
    // What Temporal stores (no codec): the input the Python caller sent, and the result, are ciphertext.
    const history = await (await testClient()).workflow.getHandle(`py-enc-ok-${tag}`).fetchHistory();
    const events = history.events ?? [];
    const input = events[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
    const result = events.at(-1)?.workflowExecutionCompletedEventAttributes?.result?.payloads?.[0];
    for (const payload of [input, result]) {
      expect(Buffer.from(payload!.metadata!.encoding!).toString()).toBe('binary/encrypted');
      expect(Buffer.from(payload!.metadata!['encryption-key-id']!).toString()).toBe('py-1');
      expect(Buffer.from(payload!.data!).toString('latin1')).not.toContain(urlOf('enc-ok'));
    }
  });
});
