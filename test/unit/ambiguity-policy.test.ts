// The policy after an ambiguous submit or create (src/workflows/ambiguity.ts): adopt the task a callback
// names; otherwise SubmitUnconfirmed, unless the job opted in to resubmitting. Milliseconds.
import { ApplicationFailure } from '@temporalio/common';
import { describe, expect, it, vi } from 'vitest';
import {
  afterAmbiguousSubmit,
  MAX_AMBIGUOUS_SUBMITS,
  unconfirmedFailure,
  type Ambiguity,
} from '../../src/workflows/ambiguity.js';

/** The stage's deadline (epoch ms), far from the grace. */
const DEADLINE = Date.now() + 3_600_000;
const withCallback: Ambiguity = { callbackSent: true, message: 'HTTP 500', evidence: [] };
const noCallback: Ambiguity = { callbackSent: false, message: 'socket reset', evidence: [] };

function policy(ambiguity: Ambiguity, o: { optIn?: boolean; count?: number; found?: string; deadline?: number } = {}) {
  const find = vi.fn(async (_until: number) => o.found);
  const unconfirmed = vi.fn((why: string) =>
    unconfirmedFailure('the create', 'the video service', ambiguity, why, { stage: 'creating' }),
  );
  const run = afterAmbiguousSubmit({
    ambiguity,
    count: o.count ?? 1,
    resubmitOnAmbiguity: o.optIn ?? false,
    graceMs: 1_000,
    deadline: o.deadline ?? DEADLINE,
    find,
    unconfirmed,
  });
  return { run, find };
}

describe('after an ambiguous submit', () => {
  it('a callback address was sent: waits up to the stage deadline and adopts the task it names', async () => {
    const { run, find } = policy(withCallback, { found: 't1' });
    expect(await run).toEqual({ adopted: 't1' });
    expect(find).toHaveBeenCalledWith(DEADLINE);
  });

  it('nothing came (or no address was sent): SubmitUnconfirmed saying why and what to do, never a resubmit', async () => {
    const err = await policy(withCallback).run.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApplicationFailure);
    expect(err).toMatchObject({ type: 'SubmitUnconfirmed', nonRetryable: true });
    expect((err as Error).message).toContain('no callback named a task before the time-out');
    expect((err as Error).message).toContain('resubmitOnAmbiguity: true');
    const { run, find } = policy(noCallback);
    const noAddress = await run.catch((e: unknown) => e);
    expect((noAddress as Error).message).toContain('no callback address was sent');
    expect((noAddress as ApplicationFailure).details?.[0]).toMatchObject({
      stage: 'creating',
      callbackSent: false,
      lastError: 'socket reset',
    });
    expect(find).not.toHaveBeenCalled();
  });

  it('opted in: waits only the grace, then resubmits, until the limit of ambiguous answers', async () => {
    const before = Date.now();
    const { run, find } = policy(withCallback, { optIn: true });
    expect(await run).toBe('resubmit');
    // The grace from now, not the stage deadline.
    expect(find.mock.calls[0]![0]).toBeGreaterThanOrEqual(before + 1_000);
    expect(find.mock.calls[0]![0]).toBeLessThanOrEqual(Date.now() + 1_000);
    expect(await policy(noCallback, { optIn: true }).run).toBe('resubmit');
    const last = await policy(noCallback, { optIn: true, count: MAX_AMBIGUOUS_SUBMITS }).run.catch((e: unknown) => e);
    expect((last as Error).message).toContain(`ambiguous ${MAX_AMBIGUOUS_SUBMITS} times in a row`);
  });

  it('opted in, but the stage has timed out: SubmitUnconfirmed, since a task made now could not be waited for', async () => {
    const { run, find } = policy(noCallback, { optIn: true, deadline: Date.now() - 1 });
    const err = await run.catch((e: unknown) => e);
    expect(err).toMatchObject({ type: 'SubmitUnconfirmed' });
    expect((err as Error).message).toContain("the stage's time-out has passed");
    expect(find).not.toHaveBeenCalled();
  });
});
