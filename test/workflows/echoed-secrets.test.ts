// Whatever a service echoes of a request, the signed callback URL it carried never reaches history: a 400
// that quotes the create, and an async review answer that echoes `callback_url` without a `task_id`
// (the transport blanks out the request's own secrets from every body it reads: src/services/http.ts).
import { describe, expect, it } from 'vitest';
import { callbackUrlSecrets, containsSignedCallbackUrl } from '../../src/callback-signing.js';
import { failureOf } from '../support/failures.js';
import { historyText } from '../support/history-text.js';
import { imageJob, signedCallbackSecrets, withStack, type Stack } from '../support/stack.js';
import { testClient } from '../support/temporal.js';

let stack: Stack;
withStack({}, (s) => (stack = s));

/** The history as text, payloads decoded, and the signed URLs the services were given in this test. */
async function historyAndSignedUrls(workflowId: string) {
  const history = historyText(await (await testClient()).workflow.getHandle(workflowId).fetchHistory());
  return { history, signed: signedCallbackSecrets(stack.sandbox) };
}

describe('echoed callback URLs', () => {
  it('a 400 that quotes the create request: VideoRequestRejected, its details without the signed URL', async () => {
    stack.sandbox.reset();
    stack.sandbox.addFault({ operation: 'video.create', fault: { type: 'status', status: 400, echo: true } });
    const handle = await stack.start(imageJob());
    const failure = await failureOf(handle);
    expect(failure.type).toBe('VideoRequestRejected');
    const details = JSON.stringify(failure.details);
    // The service did quote the request, model and callback address included.
    expect(details).toContain('video-model-1');
    expect(details).toContain('"callback_url":"[redacted]"');
    const { history, signed } = await historyAndSignedUrls(handle.workflowId);
    const sentToCreate = stack.sandbox.requests().find((r) => r.operation === 'video.create')!;
    expect(callbackUrlSecrets((sentToCreate.body as { callback_url: string }).callback_url)).toHaveLength(2);
    expect(signed.length).toBeGreaterThanOrEqual(4);
    for (const value of signed) expect(history.includes(value)).toBe(false);
    expect(containsSignedCallbackUrl(history)).toBe(false);
  });

  it('a 202 that echoes callback_url without a task_id: ambiguous, adopted by its callback, nothing leaked', async () => {
    stack.sandbox.reset();
    stack.sandbox.addFault({
      operation: 'review.submitAsync',
      fault: { type: 'status', status: 202, echo: true, commit: true },
    });
    const handle = await stack.start(imageJob());
    const result = await handle.result();
    expect(result.state).toBe('succeeded');
    const submit = stack.sandbox.requests().find((r) => r.operation === 'review.submitAsync')!;
    expect(submit.response).toMatchObject({ request: { callback_url: expect.any(String) } });
    const { history, signed } = await historyAndSignedUrls(handle.workflowId);
    for (const value of signed) expect(history.includes(value)).toBe(false);
    expect(containsSignedCallbackUrl(history)).toBe(false);
  });
});
