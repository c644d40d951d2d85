// The one loop behind every submit and create (src/workflows/submit-once.ts), without a workflow: what
// goes out, how often, and when the stage's time-out starts. The quota is a recording stand-in for
// QuotaTicket; the answers are what the submit activity returns. The clock is vitest's, so a slow asking
// attempt (a worker lost after the gate granted the ask, retried only after its start-to-close) is an
// attempt that moves the clock. The ambiguous answers' policy is test/unit/ambiguity-policy.test.ts.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AdmissionAsk, QuotaAnswer, QuotaWait } from '../../src/contract/index.js';
import { RemoteTask } from '../../src/workflows/remote-task.js';
import { videoTaskRules } from '../../src/workflows/generation-stage.js';
import { validateReviewThenGenerateInput } from '../../src/job/input.js';
import { submitAtMostOnce, type SubmitQuota } from '../../src/workflows/submit-once.js';

const T0 = Date.UTC(2026, 10, 26, 12, 0, 0);
const TIMEOUT_MS = 600_000;
const SLOW_ATTEMPT_MS = 20 * 60_000;

function job() {
  const v = validateReviewThenGenerateInput({ task: { model: 'm', content: [{ type: 'text', text: 'p' }] } });
  if (!v.ok) throw new Error('fixture input is invalid');
  return v.job;
}

/** Records what the driver asked of the quota, in order. */
function recordingQuota(grantAfterMs = 0) {
  const calls: string[] = [];
  const quota: SubmitQuota = {
    ask: { requestId: 'req-1' },
    admittedAtOnce: (slot) => void calls.push(`admittedAtOnce ${slot.key}`),
    waitFor: async (wait: QuotaWait) => {
      calls.push('queued' in wait ? 'wait (queued)' : 'wait (refused)');
      vi.setSystemTime(Date.now() + grantAfterMs);
    },
    sent: async () => void calls.push('sent'),
    answered: async () => void calls.push('answered'),
  };
  return { quota, calls };
}

/**
 * Runs the driver over `answers`, one per attempt (an Error is thrown by its attempt); `slowMs[i]`: how long
 * attempt i took. `sends`: what each attempt carried, filled as they go.
 */
function submitWith(
  answers: Array<{ taskId: string } | QuotaAnswer | Error>,
  quota: SubmitQuota,
  slowMs: number[] = [],
) {
  const task = new RemoteTask(videoTaskRules(job()));
  const sends: Array<{ ask: AdmissionAsk; deadline: number }> = [];
  const outcome = submitAtMostOnce<{ taskId: string }, string>({
    job: job(),
    run: { noteError: () => undefined },
    kind: 'video',
    label: 'create',
    task,
    quota,
    timeoutMs: TIMEOUT_MS,
    deadline: Date.now() + TIMEOUT_MS,
    send: async (ask, deadline) => {
      sends.push({ ask, deadline });
      vi.setSystemTime(Date.now() + (slowMs[sends.length - 1] ?? 0));
      const answer = answers[sends.length - 1];
      if (!answer) throw new Error(`attempt ${sends.length} was not expected`);
      if (answer instanceof Error) throw answer;
      return answer;
    },
    find: async () => undefined,
    unconfirmed: () => () => {
      throw new Error('no ambiguous answer in these rows');
    },
  });
  return { outcome, sends, task };
}

const slot = { key: 'video:m', requestId: 'req-1' };

describe('submitAtMostOnce', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(T0);
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('no limit on the worker: one attempt sends, carrying the ask and the first deadline', async () => {
    const { quota, calls } = recordingQuota();
    const { outcome, sends } = submitWith([{ taskId: 't1' }], quota);
    expect(await outcome).toEqual({ sent: { taskId: 't1' }, deadline: T0 + TIMEOUT_MS });
    expect(sends).toEqual([{ ask: { requestId: 'req-1' }, deadline: T0 + TIMEOUT_MS }]);
    expect(calls).toEqual(['sent']);
  });

  it('a slow asking attempt granted at once: the time-out starts when it answered, not when the stage began', async () => {
    const { quota, calls } = recordingQuota();
    const { outcome, sends } = submitWith([{ admitted: slot }, { taskId: 't1' }], quota, [SLOW_ATTEMPT_MS]);
    const admittedAt = T0 + SLOW_ATTEMPT_MS;
    expect(await outcome).toEqual({ sent: { taskId: 't1' }, deadline: admittedAt + TIMEOUT_MS });
    // Without the restart the create would carry a deadline 10 minutes in the past.
    expect(sends.map((s) => s.deadline)).toEqual([T0 + TIMEOUT_MS, admittedAt + TIMEOUT_MS]);
    expect(calls).toEqual(['admittedAtOnce video:m', 'sent']);
  });

  it('queued, then a 429 after the grant: waits twice, sends once, and the time-out starts at the last grant', async () => {
    const grantAfterMs = 90_000;
    const { quota, calls } = recordingQuota(grantAfterMs);
    const refused = { refused: { ...slot, message: 'HTTP 429' } };
    const { outcome, sends, task } = submitWith([{ queued: slot }, refused, { taskId: 't1' }], quota);
    const lastGrant = T0 + 2 * grantAfterMs;
    expect((await outcome).deadline).toBe(lastGrant + TIMEOUT_MS);
    expect(calls).toEqual(['wait (queued)', 'wait (refused)', 'sent']);
    expect(sends.map((s) => s.deadline)).toEqual([
      T0 + TIMEOUT_MS,
      T0 + grantAfterMs + TIMEOUT_MS,
      lastGrant + TIMEOUT_MS,
    ]);
    // Admitted again: the task goes back to submitting, for the caller to record what was made.
    expect(task.phase).toBe('submitting');
  });

  it('a failure that is not an ambiguous answer is the caller’s: thrown as is, nothing more sent', async () => {
    const { quota, calls } = recordingQuota();
    const { outcome, sends } = submitWith([new Error('HTTP 400')], quota);
    await expect(outcome).rejects.toThrow('HTTP 400');
    expect(sends).toHaveLength(1);
    expect(calls).toEqual([]);
  });
});
