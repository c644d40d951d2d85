// Several workers on one task queue, as the README recommends: this test process's worker and our worker
// (`src/worker.ts`) in a child process. Queries of a task are paced from the run's own record, so the
// minimum interval and every Retry-After hold whichever worker runs the query: the sandbox's audit of the
// whole request log finds no query too early, for callback jobs (whose confirming queries meet polls)
// and polling jobs alike.
import { describe, expect, it } from 'vitest';
import { AUDIT_RULES, auditRequestLog } from 'temporal-review-video-sandbox';
import { fastTiming, imageJob, withStack, type Stack } from '../support/stack.js';
import { testClient } from '../support/temporal.js';

let stack: Stack;
// Every not-final review answer carries Retry-After: 1 (longer than the interval below), so the audit
// checks both rules.
withStack({ workerProcesses: 1, sandbox: { reviewProcessingRetryAfter: '1' } }, (s) => (stack = s));

const minInterval = 600;
// Callback jobs fall back to polling quickly, so callbacks arrive while a poll runs on some worker.
const timing = { ...fastTiming, reviewMinQueryIntervalMs: minInterval, callbackFallbackPollMs: 700 };

describe('two workers on one task queue', () => {
  it('callback and polling jobs finish with no query closer than the interval or earlier than a Retry-After', async () => {
    stack.sandbox.reset();
    const handles = [];
    for (let i = 0; i < 8; i++) {
      const url = `https://cdn.example.com/two-workers/${i}.jpg`;
      stack.sandbox.setReviewTaskOutcome({ url }, 'completed', 2_000 + 250 * i);
      handles.push(await stack.start(imageJob(url, { callbacks: i % 2 === 0, timing })));
    }
    const results = await Promise.all(handles.map((h) => h.result()));
    expect(results.every((r) => r.state === 'succeeded')).toBe(true);

    const violations = auditRequestLog(stack.sandbox.requests(), { minQueryIntervalMs: minInterval });
    expect(violations.filter((v) => v.rule === AUDIT_RULES.queryInterval || v.rule === AUDIT_RULES.retryAfter)).toEqual(
      [],
    );
    expect(violations).toEqual([]);
    expect(stack.sandbox.reviewTasks()).toHaveLength(8);
    expect(stack.sandbox.videoTasks()).toHaveLength(8);

    // Both workers ran activities of these jobs.
    const client = await testClient();
    const identities = new Set<string>();
    for (const h of handles) {
      const history = await client.workflow.getHandle(h.workflowId).fetchHistory();
      for (const e of history.events ?? [])
        if (e.activityTaskStartedEventAttributes?.identity)
          identities.add(e.activityTaskStartedEventAttributes.identity);
    }
    expect(identities.size).toBeGreaterThanOrEqual(2);
  });
});
