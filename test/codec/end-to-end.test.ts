// Encryption on, end to end: our worker process (PAYLOAD_ENCRYPTION_KEYS set) runs a callbacks job, a
// polling job, a rejected job, a batch and a job submitted by the CLI, started through our client helper
// and the CLI. Every history, fetched as Temporal stores it (no codec), holds none of the prompts, media
// URLs, Asset:// addresses or video URLs, not even base64-decoded; failure messages are encrypted too. The
// helpers and the CLI still read results, summaries and failures, and every history replays. The worker
// loads its `.encrypted` bundle made as at image build time (dist/bundle-workflows.js): the failure
// converter compiled into the workflow code is what keeps workflow failure messages encrypted.
import { randomUUID } from 'node:crypto';
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startReviewThenGenerate, startReviewThenGenerateBatch } from '../../src/client/index.js';
import { newPayloadKey } from '../../src/codec/keys.js';
import type { ReviewThenGenerateInput } from '../../src/job/input.js';
import { fastTiming } from '../support/stack.js';
import {
  replayEncrypted,
  runCliWith,
  startEncryptedStack,
  storedHistories,
  type EncryptedStack,
} from './encrypted-stack.js';

const KEYS = `e2e-1:${newPayloadKey()}`;
const tag = randomUUID().slice(0, 8);

const promptOf = (name: string) => `Secret prompt ${name} ${tag}: a person walks along the beach`;
const urlOf = (name: string) => `https://cdn.example.com/people/${name}-${tag}.jpg`;

/** A job whose prompt and media URL are unique, so that the scan knows exactly what to look for. */
function job(name: string, callbacks: boolean): ReviewThenGenerateInput {
  return {
    task: {
      model: 'video-model-1',
      content: [
        { type: 'text', text: promptOf(name) },
        { type: 'image_url', image_url: { url: urlOf(name) }, role: 'reference_image' },
      ],
      ratio: '16:9',
      duration: 5,
      resolution: '720p',
    },
    review: {},
    callbacks,
    timing: fastTiming,
  };
}

let stack: EncryptedStack;
beforeAll(async () => {
  stack = await startEncryptedStack(KEYS, { reviewDurationMs: 300, videoDurationMs: 600 });
  // WORKFLOW_BUNDLE_PATH=<dir>/workflow-bundle.js: an encrypting worker picks workflow-bundle.encrypted.js
  // beside it (the run's bundles, as src/bundle-workflows.ts writes them).
  const worker = await stack.worker(KEYS, { WORKFLOW_BUNDLE_PATH: inject('workflowBundlePath') });
  expect(worker.output()).toContain(`"encryption":"on (encrypting with key 'e2e-1'; decrypting e2e-1)"`);
  expect(worker.output()).toContain('"workflowCode":"prebuilt bundle"');
});
afterAll(() => stack?.stop());

describe('payload encryption, end to end', () => {
  it('stores only ciphertext for every job path, while helpers and the CLI read everything back', async () => {
    const { client } = await stack.client(KEYS);
    const taskQueue = stack.taskQueue;
    const inputs = {
      callbacks: job('callbacks', true),
      polling: job('polling', false),
      rejected: job('rejected', true),
      cli: job('cli', false),
      batch0: job('batch0', true),
      batch1: job('batch1', false),
    };
    stack.sandbox.setReviewVerdict(urlOf('rejected'), {
      passed: false,
      errorCode: 'E_REAL_PERSON',
      errorMessage: 'a real person was detected',
    });
    const start = (name: string, input: ReviewThenGenerateInput) =>
      startReviewThenGenerate(client, { businessKey: `enc-${name}-${tag}`, input, taskQueue });
    const callbacksJob = await start('callbacks', inputs.callbacks);
    const pollingJob = await start('polling', inputs.polling);
    const rejectedJob = await start('rejected', inputs.rejected);
    const batch = await startReviewThenGenerateBatch(client, {
      batchId: `enc-batch-${tag}`,
      batch: { jobs: [inputs.batch0, inputs.batch1], concurrency: 2 },
      taskQueue,
    });
    const cliEnv = stack.env(KEYS);
    const submitted = await runCliWith(cliEnv, [
      'submit',
      '--key',
      `enc-cli-${tag}`,
      '--input',
      JSON.stringify(inputs.cli),
      '--wait',
      '--json',
    ]);
    expect(submitted.code, submitted.stderr).toBe(0);

    // The helpers read results and failures in clear.
    const results = [await callbacksJob.result(), await pollingJob.result()];
    for (const r of results) {
      expect(r.state).toBe('succeeded');
      expect(r.assets[0]!.assetUrl).toMatch(/^Asset:\/\//);
    }
    expect(results[0]!.assets[0]!.sourceUrl).toBe(urlOf('callbacks'));
    const rejection = await rejectedJob.result().then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(rejection).toBeInstanceOf(WorkflowFailedError);
    const cause = (rejection as WorkflowFailedError).cause as ApplicationFailure;
    expect(cause).toBeInstanceOf(ApplicationFailure);
    expect(cause.type).toBe('ReviewRejected');
    expect(cause.message).not.toBe('Encoded failure');
    const summary = await batch.result();
    expect(summary.counts.succeeded).toBe(2);
    const cliResult = JSON.parse(submitted.stdout) as {
      status: string;
      result: { videoUrl: string; assets: { assetUrl: string }[] };
    };
    expect(cliResult.status).toBe('succeeded');

    // The CLI's status decrypts the static summary (which quotes the prompt) and the memo.
    const status = await runCliWith(cliEnv, ['status', `enc-polling-${tag}`, '--json']);
    expect(status.code, status.stderr).toBe(0);
    expect((JSON.parse(status.stdout) as { staticSummary: string }).staticSummary).toContain(
      `Secret prompt polling ${tag}`,
    );

    // Everything a reader of Temporal's database could see.
    const ids = [
      callbacksJob.workflowId,
      pollingJob.workflowId,
      rejectedJob.workflowId,
      batch.workflowId,
      ...summary.outcomes.map((o) => o.workflowId!),
      `enc-cli-${tag}`,
    ];
    const secrets = [
      ...Object.keys(inputs).flatMap((name) => [promptOf(name), urlOf(name)]),
      ...results.flatMap((r) => [r.videoUrl!, ...r.assets.map((a) => a.assetUrl)]),
      ...summary.outcomes.map((o) => o.videoUrl!),
      cliResult.result.videoUrl,
      ...cliResult.result.assets.map((a) => a.assetUrl),
      'Asset://',
      'cdn.example.com',
      'a real person was detected',
    ];
    expect(secrets.filter((s) => !s)).toEqual([]);
    const histories = await storedHistories(ids);
    for (const h of histories) {
      const found = secrets.filter((s) => h.readable.includes(s));
      expect({ workflowId: h.workflowId, found }).toEqual({ workflowId: h.workflowId, found: [] });
      expect(h.encryptedPayloads, h.workflowId).toBeGreaterThan(3);
      expect([...h.keyIds]).toEqual(['e2e-1']);
    }
    // The failure is stored as "Encoded failure", its message and stack encrypted beside it.
    const failed = histories.find((h) => h.workflowId === rejectedJob.workflowId)!;
    expect(failed.readable).toContain('"message":"Encoded failure"');
    expect(failed.readable).toContain('"type":"ReviewRejected"');
    // And the workflow code replays them, decrypting as the worker does.
    expect(await replayEncrypted(ids, KEYS)).toBe(ids.length);
  });
});
