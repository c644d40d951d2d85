// A user's worker that only sets `workflowsPath` (no `workflowPreloadModules`): our modules and zod are then
// evaluated for every workflow run, and each run builds the schemas it uses. The same jobs must behave
// exactly as on our preloading worker: their histories are replayed against the preloaded bundle.
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { FailureType } from '../../src/model/failure-types.js';
import { countOps, imageJob, withStack, type Stack } from '../support/stack.js';

let stack: Stack;
withStack({ preload: false }, (s) => (stack = s));

describe('ReviewThenGenerate on a worker that does not preload our modules', () => {
  it('runs a job with callbacks at the same four calls', async () => {
    stack.sandbox.reset();
    const result = await (await stack.start(imageJob())).result();
    expect(result.state).toBe('succeeded');
    expect(result.assets[0]!.assetUrl).toMatch(/^Asset:\/\//);
    expect(countOps(stack.sandbox)).toEqual({
      'review.submitAsync': 1,
      'review.query': 1,
      'video.create': 1,
      'video.get': 1,
    });
  });

  it('rejects invalid input with InvalidInput naming the field and the rule, before any call', async () => {
    stack.sandbox.reset();
    const input = imageJob('ftp://cdn.example.com/a.jpg');
    const err = await (await stack.start(input)).result().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(WorkflowFailedError);
    const cause = (err as WorkflowFailedError).cause as ApplicationFailure;
    expect(cause.type).toBe(FailureType.InvalidInput);
    expect(cause.message).toContain(
      'task.content[1].image_url.url: must be a public http(s) URL or an Asset:// address',
    );
    expect(stack.sandbox.requests()).toHaveLength(0);
  });

  it('judges a media address by the host the URL parser reads, inside the workflow sandbox (URL, ipaddr.js)', async () => {
    stack.sandbox.reset();
    const err = await (await stack.start(imageJob('http://127.0.0.1\\@media.example.com/x.jpg'))).result().then(
      () => undefined,
      (e: unknown) => e,
    );
    const cause = (err as WorkflowFailedError).cause as ApplicationFailure;
    expect(cause.type).toBe(FailureType.InvalidInput);
    expect(cause.message).toContain(
      'task.content[1].image_url.url: must be a public http(s) URL or an Asset:// address (127.0.0.1 is a loopback address (127.0.0.0/8), not a public one)',
    );
    expect(stack.sandbox.requests()).toHaveLength(0);
  });
});
