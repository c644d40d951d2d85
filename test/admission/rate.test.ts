// The providers' caps on creates and submits per minute (issue 26), with a 2 s window so that the test is
// short: the worker caps video creates, and review submits, at 2 per window, against a sandbox that
// refuses a third one within its own window.
// The gate counts each grant for the window plus a margin (gate-rate.ts) until its run tells when the
// create was answered: with the release, sent by the query that read the task final.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { gateSignals } from '../support/gate-signals.js';
import { imageJob, textJob, videoCreateTimes, withStack, type Stack } from '../support/stack.js';
import { testClient } from '../support/temporal.js';

const WINDOW_MS = 2_000;
const videoKey = `video@rate-${randomUUID()}`;
let stack: Stack;
withStack(
  {
    admission: {
      video: { key: videoKey, byModel: {}, maxCreatesPerMinute: 2, createsWindowMs: WINDOW_MS },
      review: { key: `review@rate-${randomUUID()}`, maxSubmitsPerMinute: 2, submitsWindowMs: WINDOW_MS },
    },
  },
  (s) => (stack = s),
);

describe('VIDEO_MAX_CREATES_PER_MINUTE', () => {
  it('6 jobs at once: all succeed, never more than 2 creates in a window, no 429', async () => {
    stack.sandbox.reset();
    stack.sandbox.setQuotas({ videoMaxCreatesPerMinute: 2, quotaWindowMs: WINDOW_MS });
    const run = randomUUID().slice(0, 8);
    stack.sandbox.setVideoOutcome({ promptIncludes: run }, 'succeeded', 200);
    const handles = await Promise.all(Array.from({ length: 6 }, (_, i) => stack.start(textJob(`rate ${run} ${i}`))));
    const results = await Promise.all(handles.map((h) => h.result()));
    expect(results.map((r) => r.state)).toEqual(Array(6).fill('succeeded'));
    expect(stack.sandbox.quotaStats().video).toMatchObject({ admitted: 6, refused: 0 });
    const creates = videoCreateTimes(stack.sandbox);
    expect(creates).toHaveLength(6);
    // Any three creates span more than the window: the third of a window waited for the first to leave it.
    for (let i = 2; i < creates.length; i++) expect(creates[i]! - creates[i - 2]!).toBeGreaterThan(WINDOW_MS);
    // A create is never retried by the retry policy: a refusal, had there been one, is an answer.
    const client = await testClient();
    for (const h of handles) {
      const events = (await client.workflow.getHandle(h.workflowId).fetchHistory()).events ?? [];
      expect(events.every((e) => (e.activityTaskStartedEventAttributes?.attempt ?? 1) === 1)).toBe(true);
    }
    // The query that read each task final gave its slot back itself, with when its create was answered
    // (after the provider counted it): no run sent a release of its own.
    for (const h of handles) {
      const events = (await client.workflow.getHandle(h.workflowId).fetchHistory()).events ?? [];
      const released = events.filter(
        (e) => e.signalExternalWorkflowExecutionInitiatedEventAttributes?.signalName === 'releaseSlot',
      );
      expect(released).toEqual([]);
    }
    const signals = await gateSignals(videoKey);
    const released = signals.filter((s) => s.name === 'releaseSlot').map((s) => s.input.sentAt as number);
    expect(released).toHaveLength(6);
    released.sort((a, b) => a - b).forEach((at, i) => expect(at).toBeGreaterThanOrEqual(creates[i]!));
    // A create answered past its grant's sendBy (a loaded machine) was also reported at once, with the
    // same time its release carried.
    const releasedAt = new Map(
      signals.filter((s) => s.name === 'releaseSlot').map((s) => [s.input.requestId, s.input.sentAt]),
    );
    for (const late of signals.filter((s) => s.name === 'slotSent'))
      expect(releasedAt.get(late.input.requestId)).toBe(late.input.sentAt);
  });

  it('REVIEW_MAX_SUBMITS_PER_MINUTE: 6 jobs with a review each, never more than 2 submits in a window', async () => {
    stack.sandbox.reset();
    stack.sandbox.setQuotas({ reviewMaxSubmitsPerMinute: 2, quotaWindowMs: WINDOW_MS });
    const run = randomUUID().slice(0, 8);
    const handles = await Promise.all(
      Array.from({ length: 6 }, (_, i) => stack.start(imageJob(`https://cdn.example.com/people/rate-${run}-${i}.jpg`))),
    );
    const results = await Promise.all(handles.map((h) => h.result()));
    expect(results.map((r) => r.state)).toEqual(Array(6).fill('succeeded'));
    expect(stack.sandbox.quotaStats().review).toMatchObject({ admitted: 6, refused: 0 });
    const submits = stack.sandbox
      .requests()
      .filter((r) => r.operation === 'review.submitAsync')
      .map((r) => r.at)
      .sort((a, b) => a - b);
    expect(submits).toHaveLength(6);
    for (let i = 2; i < submits.length; i++) expect(submits[i]! - submits[i - 2]!).toBeGreaterThan(WINDOW_MS);
  });
});
