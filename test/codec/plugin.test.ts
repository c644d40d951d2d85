// A user's own worker and client given `new ReviewVideoPlugin()` encrypt when PAYLOAD_ENCRYPTION_KEYS is
// set: the codec is appended after the user's own codecs, the failure converter reaches the bundle, an
// explicit `dataConverter` wins; and a worker with only the plugin runs a job whose stored history holds
// nothing in clear.
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import type { PayloadCodec } from '@temporalio/common';
import { NativeConnection, Worker } from '@temporalio/worker';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { startReviewThenGenerate } from '../../src/client/index.js';
import { failureConverterPath } from '../../src/codec/data-converter.js';
import { PayloadEncryptionCodec } from '../../src/codec/encryption-codec.js';
import { newPayloadKey } from '../../src/codec/keys.js';
import { ReviewVideoPlugin } from '../../src/plugin.js';
import { startSandbox, type Sandbox } from 'temporal-review-video-sandbox';
import { fastTiming, imageJob } from '../support/stack.js';
import { temporalAddress } from '../support/temporal.js';
import { storedHistories } from './encrypted-stack.js';

const KEYS = `plugin-1:${newPayloadKey()}`;
const own: PayloadCodec = { encode: async (p) => p, decode: async (p) => p };

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ allowPrivateUrls: true, reviewDurationMs: 200, videoDurationMs: 300 });
});
afterAll(() => sandbox?.close());
afterEach(() => {
  delete process.env.PAYLOAD_ENCRYPTION_KEYS;
});

const services = () => ({
  services: {
    video: { baseUrl: sandbox.videoBaseUrl, apiKey: sandbox.apiKey, timeoutMs: 5_000, allowPrivateUrls: true },
    review: {
      baseUrl: sandbox.reviewBaseUrl,
      accessToken: sandbox.accessToken,
      timeoutMs: 5_000,
      allowPrivateUrls: true,
    },
  },
});

describe('ReviewVideoPlugin and payload encryption', () => {
  it('adds the codec of PAYLOAD_ENCRYPTION_KEYS after the worker and client codecs, and the failure converter', async () => {
    process.env.PAYLOAD_ENCRYPTION_KEYS = KEYS;
    const plugin = new ReviewVideoPlugin(services());
    const worker = plugin.configureWorker({ taskQueue: 'q', dataConverter: { payloadCodecs: [own] } });
    expect(worker.dataConverter?.payloadCodecs?.[0]).toBe(own);
    expect(worker.dataConverter?.payloadCodecs?.[1]).toBeInstanceOf(PayloadEncryptionCodec);
    expect(worker.dataConverter?.failureConverterPath).toBe(failureConverterPath);
    const client = plugin.configureClient({});
    expect(client.dataConverter?.payloadCodecs?.[0]).toBeInstanceOf(PayloadEncryptionCodec);
    expect(plugin.configureBundler({ workflowsPath: '/app/w.js' }).failureConverterPath).toBe(failureConverterPath);
    expect(plugin.configureReplayWorker({}).dataConverter?.payloadCodecs?.[0]).toBeInstanceOf(PayloadEncryptionCodec);
    await plugin.close();

    // The `env` source reads its own variables; an explicit dataConverter (here `{}`: none) wins.
    const fromEnv = new ReviewVideoPlugin({ env: { PAYLOAD_ENCRYPTION_KEYS: KEYS } });
    expect(fromEnv.configureClient({}).dataConverter?.payloadCodecs?.[0]).toBeInstanceOf(PayloadEncryptionCodec);
    const explicit = new ReviewVideoPlugin({ ...services(), dataConverter: {} });
    expect(explicit.configureClient({}).dataConverter?.payloadCodecs).toBeUndefined();
    expect(explicit.configureBundler({ workflowsPath: '/app/w.js' }).failureConverterPath).toBeUndefined();
    delete process.env.PAYLOAD_ENCRYPTION_KEYS;
    const off = new ReviewVideoPlugin(services());
    expect(off.configureClient({}).dataConverter).toBeUndefined();
    // A bad key stops the plugin at once, naming the variable (never the value).
    process.env.PAYLOAD_ENCRYPTION_KEYS = 'k:c2hvcnQ=';
    expect(() => new ReviewVideoPlugin(services())).toThrow(
      "invalid configuration: PAYLOAD_ENCRYPTION_KEYS key 'k' must be 32 bytes (got 5); make one with: openssl rand -base64 32",
    );
  });

  it("encrypts a user's worker made with nothing but the plugin", async () => {
    process.env.PAYLOAD_ENCRYPTION_KEYS = KEYS;
    const plugin = new ReviewVideoPlugin(services());
    const native = await NativeConnection.connect({ address: temporalAddress() });
    const connection = await Connection.connect({ address: temporalAddress() });
    const namespace = inject('temporalNamespace');
    const taskQueue = `plugin-enc-${randomUUID()}`;
    try {
      const worker = await Worker.create({ connection: native, namespace, taskQueue, plugins: [plugin] });
      const client = new Client({ connection, namespace, plugins: [plugin] });
      const url = `https://cdn.example.com/people/plugin-${randomUUID()}.jpg`;
      const result = await worker.runUntil(async () => {
        const job = await startReviewThenGenerate(client, {
          businessKey: `plugin-enc-${randomUUID()}`,
          input: imageJob(url, { callbacks: false, timing: fastTiming }),
          taskQueue,
        });
        const r = await job.result();
        return { ...r, workflowId: job.workflowId };
      });
      expect(result.assets[0]!.sourceUrl).toBe(url);
      const [history] = await storedHistories([result.workflowId]);
      for (const s of [url, result.videoUrl!, result.assets[0]!.assetUrl, 'A person walks along the beach'])
        expect(history!.readable).not.toContain(s);
      expect([...history!.keyIds]).toEqual(['plugin-1']);
    } finally {
      await plugin.close();
      await Promise.all([native.close(), connection.close()]);
    }
  });
});
