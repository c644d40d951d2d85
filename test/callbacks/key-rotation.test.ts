// Rotating CALLBACK_SECRET with jobs in flight (docs/operations.md, "Rotating the callback secret"): the
// review callbacks of URLs signed with the old key, and the video callbacks of URLs signed with the new
// one, all become signals; once the old key is dropped its URLs are refused.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createActivities } from '../../src/activities/index.js';
import { verifyCallbackUrl, type CallbackKind } from '../../src/callback-signing.js';
import { startCallbackServer, type CallbackServer } from '../../src/callbacks/server.js';
import { imageJob, withStack, workflowBundle, type CallbackOutcome, type Stack } from '../support/stack.js';
import { startWorker, testClient, type RunningWorker } from '../support/temporal.js';

let stack: Stack;
withStack({ noWorker: true, sandbox: { reviewDurationMs: 2_500, videoDurationMs: 800 } }, (s) => (stack = s));

async function workerSigningWith(secret: string[]): Promise<RunningWorker> {
  const callbacks = { publicUrl: stack.receiver.url, secret };
  return startWorker({
    taskQueue: stack.taskQueue,
    workflowBundle: workflowBundle(),
    activities: createActivities({ ...stack.clients, callbacks }),
  });
}

/** A receiver on the stack's address (the one the services were given) with these keys. */
async function receiverWith(secret: string[], outcomes: CallbackOutcome[]): Promise<CallbackServer> {
  const { port } = new URL(stack.receiver.url);
  return startCallbackServer({
    client: await testClient(),
    secret,
    host: '127.0.0.1',
    port: Number(port),
    onOutcome: (o) => outcomes.push(o),
  });
}

async function until(check: () => boolean) {
  while (!check()) await new Promise((r) => setTimeout(r, 50));
}

const signedWith = (key: string, url: string, kind: CallbackKind) => {
  const u = new URL(url);
  const workflowId = decodeURIComponent(u.pathname.split('/').at(-1)!);
  return verifyCallbackUrl([key], kind, workflowId, u.searchParams).ok;
};

describe('CALLBACK_SECRET rotation with jobs in flight', () => {
  it('old and new keys verify during the rotation; the old one is refused once dropped', async () => {
    const oldKey = stack.secret;
    const newKey = `cb-new-${randomBytes(16).toString('hex')}`;
    const worker = await workerSigningWith([oldKey]);
    const jobs = await Promise.all([1, 2, 3].map((n) => stack.start(imageJob(`https://cdn.example.com/r${n}.jpg`))));
    await until(() => stack.sandbox.requests().filter((r) => r.operation === 'review.submitAsync').length === 3);

    // Steps 1 and 2 while the reviews run: receivers verify both keys, then workers sign with the new one.
    await stack.receiver.close();
    const outcomes: CallbackOutcome[] = [];
    const rotating = await receiverWith([newKey, oldKey], outcomes);
    await worker.stop();
    const rotated = await workerSigningWith([newKey, oldKey]);
    for (const job of jobs) expect((await job.result()).state).toBe('succeeded');
    await rotated.stop();

    const delivered = stack.sandbox.callbacks().filter((c) => c.outcome === 'delivered');
    const reviews = delivered.filter((c) => c.kind === 'review');
    const videos = delivered.filter((c) => c.kind === 'video');
    expect(reviews).toHaveLength(3);
    expect(videos.length).toBeGreaterThanOrEqual(3);
    // Review URLs went out before the rotation, video URLs after it.
    expect(reviews.every((c) => signedWith(oldKey, c.url, 'review'))).toBe(true);
    expect(videos.every((c) => signedWith(newKey, c.url, 'video'))).toBe(true);
    expect(delivered.every((c) => c.httpStatus === 202)).toBe(true);
    expect(outcomes.filter((o) => o.status >= 400)).toEqual([]);
    expect(outcomes.filter((o) => o.kind === 'review' && o.outcome === 'accepted')).toHaveLength(3);

    // Step 3: the old key dropped (its URLs have expired in production): an old URL is now refused.
    await rotating.close();
    const final = await receiverWith([newKey], []);
    try {
      const replay = (url: string) => fetch(url, { method: 'POST', body: '{"status":"completed"}' });
      expect((await replay(reviews[0]!.url)).status).toBe(401);
      expect((await replay(videos[0]!.url)).status).toBe(202);
    } finally {
      await final.close();
    }
  });
});
