// The package's own traffic against the audit's backoff and duplicate rules: ReviewThenGenerate on the dev
// server with the sandbox over HTTP, under the faults those rules are about (failed review queries, an
// ambiguous create, an opted-in resubmit). The audit finds nothing, given what only the caller knows:
// which job opted in to resubmitting.
import { describe, expect, it } from 'vitest';
import { AUDIT_RULES, auditRequestLog } from 'temporal-review-video-sandbox';
import { countOps, fastTiming, imageJob, withStack, type Stack } from './support/stack.js';

let stack: Stack;
withStack({ httpTimeoutMs: 1_000 }, (s) => (stack = s));

const audit = (optedIn = false) =>
  auditRequestLog(stack.sandbox.requests(), {
    minQueryIntervalMs: fastTiming.reviewMinQueryIntervalMs,
    optedIn: () => optedIn,
  });

describe("the package's traffic keeps the backoff and duplicate rules", () => {
  it('review queries failing three times in a row (reset, 500, 503) back off 1 s, 2 s, 4 s', async () => {
    stack.sandbox.reset();
    stack.sandbox.addFault({ operation: 'review.query', times: 1, fault: { type: 'reset' } });
    stack.sandbox.addFault({ operation: 'review.query', times: 1, fault: { type: 'status', status: 500 } });
    stack.sandbox.addFault({ operation: 'review.query', times: 1, fault: { type: 'status', status: 503 } });
    const result = await (await stack.start(imageJob(undefined, { callbacks: false }))).result();
    expect(result.state).toBe('succeeded');
    expect(countOps(stack.sandbox)['review.query']).toBeGreaterThanOrEqual(4);
    expect(audit()).toEqual([]);
  });

  it('a create answered 500 after commit is adopted from its callback, never sent again', async () => {
    stack.sandbox.reset();
    stack.sandbox.addFault({
      operation: 'video.create',
      times: 1,
      fault: { type: 'status', status: 500, commit: true },
    });
    const result = await (await stack.start(imageJob())).result();
    expect(result.state).toBe('succeeded');
    expect(countOps(stack.sandbox)['video.create']).toBe(1);
    expect(audit()).toEqual([]);
  });

  it('an opted-in job resends a create answered 500 before commit: clean once the audit knows it opted in', async () => {
    stack.sandbox.reset();
    stack.sandbox.addFault({ operation: 'video.create', times: 1, fault: { type: 'status', status: 500 } });
    const input = imageJob(undefined, {
      resubmitOnAmbiguity: true,
      timing: { ...fastTiming, createAmbiguityGraceMs: 500 },
    });
    const result = await (await stack.start(input)).result();
    expect(result.state).toBe('succeeded');
    expect(countOps(stack.sandbox)['video.create']).toBe(2);
    expect(audit(true)).toEqual([]);
    // Without that knowledge the resend is a blind resubmit.
    expect(audit(false).map((v) => v.rule)).toEqual([AUDIT_RULES.duplicateCreate]);
  });
});
