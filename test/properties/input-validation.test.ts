// Property tests of the workflow input: any JSON value gives either a valid job or InvalidInput problems
// that each name a field of the input and a rule, never a throw or a hang; and the real workflow on the
// dev server gives the same verdict (InvalidInput with those problems, or a running job), never a
// failed workflow task.
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FailureType } from '../../src/model/failure-types.js';
import type { Progress } from '../../src/job/definitions.js';
import { validateReviewThenGenerateInput } from '../../src/job/input.js';
import { failureOf } from '../support/failures.js';
import { startStack, type Stack } from '../support/stack.js';
import { testClient } from '../support/temporal.js';
import { anyInput, asJson, mutatedInput, validShapeInput } from '../support/input-arbitraries.js';

/** temporal.api.enums.v1.WorkflowTaskFailedCause (the proto package is not a dependency of ours). */
const WORKFLOW_TASK_FAILED_CAUSE_FORCE_CLOSE_COMMAND = 17;

const TOP_LEVEL = /^(\(input\)|task|review|callbacks|timing|batchId)(\b|\.|\[|$)/;

// "Never a hang" is that every property below runs all its inputs to the end (a hang ends the test by its
// time-out); that validation fits in a workflow task is the dev-server test's: no workflow task fails.
function checkVerdict(input: unknown) {
  const v = validateReviewThenGenerateInput(input);
  if (v.ok) {
    expect(v.job.task.content.length).toBeGreaterThan(0);
    expect(typeof v.job.task.model).toBe('string');
    expect(v.job.timing.callTimeoutMs).toBeGreaterThanOrEqual(1_000);
    for (const batch of v.job.reviewBatches) expect(batch.urls.length).toBeGreaterThan(0);
  } else {
    expect(v.problems.length).toBeGreaterThan(0);
    for (const p of v.problems) {
      expect(p.field).toMatch(TOP_LEVEL);
      expect(typeof p.rule).toBe('string');
      expect(p.rule.trim()).not.toBe('');
    }
  }
  // Deterministic: the workflow and the client helper must reach the same verdict.
  expect(validateReviewThenGenerateInput(input)).toEqual(v);
  return v;
}

describe('validateReviewThenGenerateInput', () => {
  it('any JSON value: a valid job or problems naming fields, never a throw', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (input) => void checkVerdict(input)),
      { numRuns: 2_000 },
    );
  });

  it('any JavaScript value (undefined, functions, symbols, cycles aside): never a throw', () => {
    fc.assert(
      fc.property(
        fc.anything({
          withBigInt: true,
          withDate: true,
          withMap: true,
          withSet: true,
          withTypedArray: true,
          withSparseArray: true,
          withNullPrototype: true,
        }),
        (input) => void checkVerdict(input),
      ),
      { numRuns: 1_000 },
    );
  });

  it('valid-shaped inputs with random mutations: a valid job or problems naming fields', () => {
    let valid = 0;
    let invalid = 0;
    fc.assert(
      fc.property(fc.oneof(validShapeInput, mutatedInput), (input) => {
        if (checkVerdict(input).ok) valid++;
        else invalid++;
      }),
      { numRuns: 3_000 },
    );
    // The generators are worth something only if they produce both verdicts.
    expect(valid).toBeGreaterThan(100);
    expect(invalid).toBeGreaterThan(100);
  });
});

describe('ReviewThenGenerate on the dev server with arbitrary input', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('fails with InvalidInput naming the same problems, or runs the job; no workflow task ever fails', async () => {
    const client = await testClient();
    let invalid = 0;
    let valid = 0;
    await fc.assert(
      fc.asyncProperty(anyInput, async (raw) => {
        const input = asJson(raw) ?? null;
        const expected = validateReviewThenGenerateInput(input);
        const handle = await stack.start(input as never, `prop-input-${randomUUID()}`);
        if (!expected.ok) {
          invalid++;
          const cause = await failureOf(handle);
          expect(cause.type).toBe(FailureType.InvalidInput);
          expect(cause.details?.[0]).toEqual({ problems: expected.problems });
        } else {
          valid++;
          // The query handler is set once validation passed: an answer proves the first workflow task completed.
          const progress = await handle.query<Progress>('progress');
          expect(['reviewing', 'creating', 'generating', 'succeeded', 'failed']).toContain(progress.stage);
          await handle.terminate('property test: validation passed, the job itself is not under test');
        }
        const history = await client.workflow.getHandle(handle.workflowId).fetchHistory();
        const failedTasks = (history.events ?? []).flatMap((e) => {
          const a = e.workflowTaskFailedEventAttributes;
          // FORCE_CLOSE_COMMAND is our own terminate landing while a task was running: not a crash.
          if (!a || a.cause === WORKFLOW_TASK_FAILED_CAUSE_FORCE_CLOSE_COMMAND) return [];
          return [`workflow task failed (cause ${String(a.cause)}): ${a.failure?.message ?? ''}`];
        });
        expect(failedTasks).toEqual([]);
      }),
      { numRuns: 40, endOnFailure: true },
    );
    expect(invalid).toBeGreaterThan(0);
    expect(valid).toBeGreaterThan(0);
  }, 300_000);
});
