// Key rotation on a real worker: jobs started and half done under key A (their review submitted, the
// results of those activities encrypted with A) finish after the worker restarts with [B, A]; what it writes
// from then on is encrypted with B. A process that was given B alone says which key it misses.
import { randomUUID } from 'node:crypto';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { getReviewJob, startReviewThenGenerate, type ReviewJobHandle } from '../../src/client/index.js';
import { newPayloadKey } from '../../src/codec/keys.js';
import { fastTiming, imageJob } from '../support/stack.js';
import {
  replayEncrypted,
  runCliWith,
  startEncryptedStack,
  storedHistories,
  type EncryptedStack,
} from './encrypted-stack.js';

const A = `a:${newPayloadKey()}`;
const B = `b:${newPayloadKey()}`;
const tag = randomUUID().slice(0, 8);

let stack: EncryptedStack;
beforeAll(async () => {
  // The receiver is at step 1 of the rotation (docs/encryption.md): it knows B, still encrypts with A.
  stack = await startEncryptedStack(`${A},${B}`, { reviewDurationMs: 3_000, videoDurationMs: 500 });
});
// The run's plain bundle alone in a folder: no `.encrypted` variant beside it.
const plainOnly = mkdtempSync(join(tmpdir(), 'rtg-plain-bundle-'));
afterAll(async () => {
  await stack?.stop();
  rmSync(plainOnly, { recursive: true, force: true });
});

async function untilSubmitted(job: ReviewJobHandle): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const p = await job.progress().catch(() => undefined);
    if (p?.review.tasks.some((t) => t.taskId)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${job.workflowId}: review never submitted`);
}

describe('key rotation', () => {
  it('finishes runs started under key A on a worker restarted with [B, A]', async () => {
    const first = await stack.worker(A);
    const { client: clientA } = await stack.client(A);
    const taskQueue = stack.taskQueue;
    const underA = [
      await startReviewThenGenerate(clientA, {
        businessKey: `rot-callbacks-${tag}`,
        input: imageJob(`https://cdn.example.com/people/rot-cb-${tag}.jpg`, { timing: fastTiming }),
        taskQueue,
      }),
      await startReviewThenGenerate(clientA, {
        businessKey: `rot-polling-${tag}`,
        input: imageJob(`https://cdn.example.com/people/rot-poll-${tag}.jpg`, { callbacks: false }),
        taskQueue,
      }),
    ];
    await Promise.all(underA.map(untilSubmitted));
    expect(await first.stop()).toBe(0);

    // Without an `.encrypted` bundle beside the given one, it bundles at start rather than use the plain one.
    const plain = join(plainOnly, 'workflow-bundle.js');
    copyFileSync(inject('workflowBundlePath'), plain);
    const second = await stack.worker(`${B},${A}`, { WORKFLOW_BUNDLE_PATH: plain });
    expect(second.output()).toContain(`"encryption":"on (encrypting with key 'b'; decrypting b, a)"`);
    expect(second.output()).toContain('"workflowCode":"bundled at start"');
    const { client: clientBA } = await stack.client(`${B},${A}`);
    const underB = await startReviewThenGenerate(clientBA, {
      businessKey: `rot-new-${tag}`,
      // Polling: the receiver, still at step 1, encrypts its signals with A, and a polling run still gets
      // its review task's final callback (docs/rules.md: a lost poll answer may have seen `cancelled`).
      input: imageJob(`https://cdn.example.com/people/rot-new-${tag}.jpg`, { callbacks: false }),
      taskQueue,
    });
    const ids = [...underA.map((j) => j.workflowId), underB.workflowId];
    for (const id of ids) {
      const result = await (await getReviewJob(clientBA, id)).result();
      expect(result.state, id).toBe('succeeded');
    }

    const histories = await storedHistories(ids);
    // Started and half done under A, finished under B.
    for (const h of histories.slice(0, 2)) expect([...h.keyIds].sort(), h.workflowId).toEqual(['a', 'b']);
    // Everything the worker and the client wrote is under B; the receiver's one signal under A (step 1).
    expect([...histories[2]!.keyIds].sort()).toEqual(['a', 'b']);
    for (const h of histories) expect(h.readable).not.toContain('cdn.example.com');
    expect(await replayEncrypted(ids, `${B},${A}`)).toBe(ids.length);

    // Dropping A too early: the CLI names the missing key instead of printing garbage.
    const status = await runCliWith(stack.env(B), ['status', underA[0]!.workflowId]);
    expect(status.code).toBe(6);
    expect(status.stderr).toContain(
      "payload encrypted with key id 'a' which is not in PAYLOAD_ENCRYPTION_KEYS (known: b)",
    );
    const withBoth = await runCliWith(stack.env(`${B},${A}`), ['status', underA[0]!.workflowId]);
    expect(withBoth.code, withBoth.stderr).toBe(0);
    expect(withBoth.stdout).toContain('rot-callbacks');
  });
});
