// A user's worker made with nothing of ours but the plugin (plus its connection and task queue) runs a
// ReviewThenGenerate job against the sandbox, callbacks included; and a plugin read from an incomplete
// environment stops Worker.create, naming the variable.
import { NativeConnection, Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ReviewVideoPlugin } from '../../src/plugin.js';
import { countOps, imageJob, withStack, type Stack } from '../support/stack.js';
import { temporalAddress } from '../support/temporal.js';

let stack: Stack;
withStack({ noWorker: true }, (s) => (stack = s));

let connection: NativeConnection;
beforeAll(async () => {
  connection = await NativeConnection.connect({ address: temporalAddress() });
});
afterAll(async () => {
  await connection?.close();
});

describe('a worker with only the plugin', () => {
  it('runs a job end to end, woken by callbacks: the four calls of a job with callbacks', async () => {
    const plugin = new ReviewVideoPlugin(stack.activitySettings);
    const worker = await Worker.create({
      connection,
      namespace: inject('temporalNamespace'),
      taskQueue: stack.taskQueue,
      plugins: [plugin],
    });
    const result = await worker.runUntil(async () => (await stack.start(imageJob())).result());
    expect(result.state).toBe('succeeded');
    expect(result.assets[0]?.assetUrl).toMatch(/^Asset:\/\//);
    expect(countOps(stack.sandbox)).toEqual({
      'review.submitAsync': 1,
      'review.query': 1,
      'video.create': 1,
      'video.get': 1,
    });
    expect(stack.sandbox.callbacks().map((c) => c.outcome)).toContain('delivered');
  });

  it('built from an environment without the services, refuses to create the worker, naming the variable', async () => {
    const plugin = new ReviewVideoPlugin({ env: { REVIEW_ACCESS_TOKEN: 'super-secret-token' } });
    const created = Worker.create({
      connection,
      namespace: inject('temporalNamespace'),
      taskQueue: stack.taskQueue,
      plugins: [plugin],
    });
    await expect(created).rejects.toThrow(/^invalid configuration: .*VIDEO_API_BASE_URL/);
    await expect(created).rejects.not.toThrow(/super-secret-token/);
  });
});
