// What test/python/caller.test.ts and test/go/caller.test.ts check of a caller in another language, run as
// a subprocess against the dev server: it starts ReviewThenGenerate by name with plain JSON, polls
// `progress`, and prints the result, a typed failure with its details, or a cancellation, as JSON. Encryption
// off and on (our worker process, with PAYLOAD_ENCRYPTION_KEYS or without; the caller's own codec), each in a
// namespace of its own where neither the worker nor the caller is told a task queue (caller-stack.ts). What
// it prints validates against the shipped JSON Schemas (ajv).
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newPayloadKey } from '../../src/codec/keys.js';
import { DEFAULT_TASK_QUEUE } from '../../src/config/temporal.js';
import { imageJob } from '../support/stack.js';
import { startCallerStack, type CallerStack } from './caller-stack.js';

export interface CallerUnderTest {
  /** As the describe blocks name it: 'Python', 'Go'. */
  name: string;
  /** In the business keys, URLs, prompts and key ids the tests make: 'py', 'go'. */
  prefix: string;
  /** The command line that runs the caller (called once its setup has run). */
  command(input: string, key: string, cancelAtStage: string | undefined): { file: string; args: string[] };
  /** Environment besides PATH and the Temporal settings. */
  env?: Record<string, string>;
  /**
   * What a repeated start with a used key does (REJECT_DUPLICATE): return that run (Go's ExecuteWorkflow),
   * or fail with this error (Python's start_workflow).
   */
  repeatedStart: 'reads the first run' | RegExp;
}

interface CallerOutput {
  workflowId: string;
  stages: string[];
  lastProgress: unknown;
  outcome: 'succeeded' | 'failed' | 'cancelled';
  result?: { taskId: string; state: string; assets: Array<{ sourceUrl: string }> };
  failure?: { type: string; message: string; details: unknown[] };
}

const schemas = fileURLToPath(new URL('../../schemas/', import.meta.url));
const ajv = new Ajv2020({ strict: true, allErrors: true });
function expectValid(schema: string, value: unknown): void {
  const validate =
    ajv.getSchema(schema) ??
    ajv.compile({ ...(JSON.parse(readFileSync(`${schemas}${schema}`, 'utf8')) as object), $id: schema });
  expect(validate(value), `${schema}: ${ajv.errorsText(validate.errors)}`).toBe(true);
}

const verdict = { passed: false, errorCode: 'E_REAL_PERSON', errorMessage: 'a real person was detected' };

/** The caller's tests, encryption off and on. */
export function describeCaller(caller: CallerUnderTest): void {
  const { prefix } = caller;
  const tag = randomUUID().slice(0, 8);
  const urlOf = (name: string) => `https://cdn.example.com/people/${prefix}-${name}-${tag}.jpg`;
  const keyOf = (name: string) => `${prefix}-${name}-${tag}`;
  /** The business keys the caller was given: the runs whose histories are checked at the end. */
  const started = new Set<string>();

  function runCaller(env: Record<string, string>, name: string, callbacks = true, cancelAtStage?: string) {
    const input = imageJob(urlOf(name), { callbacks });
    input.task.content = [
      { type: 'text', text: `A person walks along the beach (${prefix} ${name} ${tag})` },
      { type: 'image_url', image_url: { url: urlOf(name) }, role: 'reference_image' },
    ];
    const { file, args } = caller.command(JSON.stringify(input), keyOf(name), cancelAtStage);
    started.add(keyOf(name));
    return new Promise<CallerOutput>((resolve, reject) => {
      const child = spawn(file, args, {
        env: { PATH: process.env.PATH ?? '', ...caller.env, ...env },
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
        if (code !== 0)
          reject(new Error(`the ${caller.name} caller exited ${code}\n${stdout.slice(-2000)}\n${stderr.slice(-4000)}`));
        else resolve(JSON.parse(stdout.trim().split('\n').at(-1)!) as CallerOutput);
      });
    });
  }

  /** The outcomes every mode checks: a result, and a ReviewRejected failure with its items. */
  async function succeedsAndFailsTyped(env: Record<string, string>, mode: string, rejectUrl: (url: string) => void) {
    const ok = await runCaller(env, `${mode}-ok`);
    expect(ok.outcome).toBe('succeeded');
    expect(ok.workflowId).toBe(keyOf(`${mode}-ok`));
    expect(ok.result).toMatchObject({ state: 'succeeded', assets: [{ sourceUrl: urlOf(`${mode}-ok`) }] });
    expect(ok.stages[0]).toBe('reviewing');
    expectValid('job-result.schema.json', ok.result);
    expectValid('job-progress.schema.json', ok.lastProgress);
    // The same key again, its run closed: no second job.
    if (caller.repeatedStart === 'reads the first run')
      expect(await runCaller(env, `${mode}-ok`)).toMatchObject({
        outcome: 'succeeded',
        result: { taskId: ok.result!.taskId },
      });
    else await expect(runCaller(env, `${mode}-ok`)).rejects.toThrow(caller.repeatedStart);

    rejectUrl(urlOf(`${mode}-rejected`));
    const rejected = await runCaller(env, `${mode}-rejected`);
    expect(rejected.outcome).toBe('failed');
    expect(rejected.failure).toMatchObject({
      type: 'ReviewRejected',
      details: [{ items: [{ url: urlOf(`${mode}-rejected`), error_code: 'E_REAL_PERSON' }] }],
    });
    expect(rejected.failure!.message).toContain('review rejected 1 item(s)');
    expectValid('failure-details/ReviewRejected.schema.json', rejected.failure!.details[0]);
  }

  /** Cancelled while it generates: the run ends cancelled, and its video task is cancelled. */
  async function cancelsWhileGenerating(stack: CallerStack, env: Record<string, string>, mode: string) {
    const { sandbox } = stack;
    const name = `${mode}-cancel`;
    sandbox.setVideoOutcome({ promptIncludes: `${prefix} ${name} ${tag}` }, 'succeeded', 60_000);
    const out = await runCaller(env, name, false, 'generating');
    expect(out.outcome).toBe('cancelled');
    expect(out.stages).toContain('generating');
    const history = await stack.rawClient.workflow.getHandle(keyOf(name)).fetchHistory();
    expect(history.events?.at(-1)?.workflowExecutionCanceledEventAttributes).toBeTruthy();
    const { taskId } = out.lastProgress as { taskId?: string };
    expect(taskId).toBeTruthy();
    const cancels = sandbox.requests().filter((r) => r.operation === 'video.cancel' && r.taskId === taskId);
    expect(cancels.length).toBeGreaterThanOrEqual(1);
    return history;
  }

  /** Each mode: its own namespace, our worker process on its default task queue, the caller told none. */
  function withCallerStack(mode: string, keys: string | undefined, use: (stack: CallerStack) => void) {
    let stack: CallerStack | undefined;
    beforeAll(async () => {
      stack = await startCallerStack(`callers-${prefix}-${mode}-${tag}`, keys, {
        reviewDurationMs: 300,
        videoDurationMs: 600,
      });
      use(stack);
    });
    afterAll(async () => {
      if (!stack) return;
      const runs = [...started].filter((key) => key.startsWith(`${prefix}-${mode}-`));
      try {
        expect(await stack.checkHistories(runs)).toBe(runs.length);
      } finally {
        await stack.stop();
      }
    });
  }

  /** The worker's queue is the package's default, and the caller was told none. */
  function expectDefaultQueue(stack: CallerStack) {
    expect(stack.worker.output()).toContain(`worker: task queue ${DEFAULT_TASK_QUEUE} `);
  }

  describe(`the ${caller.name} caller, encryption off`, () => {
    let stack: CallerStack;
    withCallerStack('plain', undefined, (s) => (stack = s));

    it('starts a job by name on the default task queue, polls progress, reads the result and a typed failure', async () => {
      expectDefaultQueue(stack);
      await succeedsAndFailsTyped(stack.callerEnv, 'plain', (url) => stack.sandbox.setReviewVerdict(url, verdict));
    });

    it('cancels a job while it generates: the run ends cancelled, its video task cancelled', async () => {
      await cancelsWhileGenerating(stack, stack.callerEnv, 'plain');
    });
  });

  describe(`the ${caller.name} caller, encryption on (its own AES-256-GCM codec, the keys of the worker)`, () => {
    const keyId = `${prefix}-1`;
    const KEYS = `${keyId}:${newPayloadKey()}`;
    let stack: CallerStack;
    withCallerStack('enc', KEYS, (s) => (stack = s));
    const env = () => ({ ...stack.callerEnv, PAYLOAD_ENCRYPTION_KEYS: KEYS });
    /** What Temporal stores (no codec) is ciphertext under the caller's key id. */
    function expectEncrypted(payload: { metadata?: Record<string, Uint8Array> | null; data?: Uint8Array | null }) {
      expect(Buffer.from(payload.metadata!.encoding!).toString()).toBe('binary/encrypted');
      expect(Buffer.from(payload.metadata!['encryption-key-id']!).toString()).toBe(keyId);
      expect(Buffer.from(payload.data!).toString('latin1')).not.toContain('cdn.example.com');
    }

    it('reads the result and the typed failure (message included) of runs whose payloads are encrypted', async () => {
      expectDefaultQueue(stack);
      await succeedsAndFailsTyped(env(), 'enc', (url) => stack.sandbox.setReviewVerdict(url, verdict));
      // The input the caller sent, and the result, are ciphertext.
      const history = await stack.rawClient.workflow.getHandle(keyOf('enc-ok')).fetchHistory();
      const events = history.events ?? [];
      expectEncrypted(events[0]!.workflowExecutionStartedEventAttributes!.input!.payloads![0]!);
      expectEncrypted(events.at(-1)!.workflowExecutionCompletedEventAttributes!.result!.payloads![0]!);
    });

    it('cancels a job whose payloads are encrypted while it generates: the run ends cancelled', async () => {
      const history = await cancelsWhileGenerating(stack, env(), 'enc');
      expectEncrypted(history.events![0]!.workflowExecutionStartedEventAttributes!.input!.payloads![0]!);
    });
  });
}
