// The quota benchmark's provider-side arithmetic (bench/quota/provider-timeline.ts): the ideal under two
// binding limits, and a slot's idle time net of what the rate window forced.
import { describe, expect, it } from 'vitest';
import { chainSteps, idealCreates, turnovers } from '../quota/provider-timeline.js';

describe('provider timeline', () => {
  it('the ideal obeys both limits: 2 in flight, 3 per 10 s window, 1 s tasks', () => {
    const limits = { maxInFlight: 2, maxPerWindow: 3, windowMs: 10_000 };
    // Two at once, the third when the first ends, the fourth when the window lets it (first create + 10 s).
    expect(idealCreates(5, 1_000, limits)).toEqual([0, 0, 1_000, 10_000, 10_000]);
  });

  it('without a rate limit, waves of one task duration', () => {
    expect(idealCreates(5, 3_000, { maxInFlight: 2, windowMs: 60_000 })).toEqual([0, 0, 3_000, 3_000, 6_000]);
  });

  it("charges a slot's idle time from its task's end, or from the window's opening when that is later", () => {
    const limits = { maxInFlight: 1, maxPerWindow: 2, windowMs: 10_000 };
    // Tasks of 1 s: the second create reuses the slot 200 ms after the first ended; the third could go only
    // when the first create left the window (10 s), and went 50 ms after that.
    const creates = [0, 1_200, 10_050];
    const ends = creates.map((c) => c + 1_000);
    expect(turnovers(creates, ends, limits).map((t) => t.idleMs)).toEqual([200, 50]);
  });

  it('splits the chain into its steps and skips a step missing one of its ends', () => {
    const steps = chainSteps([
      { taskFinal: 0, callback: 10, confirmed: 110, released: 150, windowOpenAt: 0, granted: 200, created: 260 },
      { taskFinal: 1_000, callback: 1_030, released: 1_200, windowOpenAt: 1_250, granted: 1_270, created: 1_300 },
    ]);
    expect(steps.finalToCallback).toEqual({ count: 2, p50: 10, p95: 30 });
    expect(steps.callbackToConfirmed).toEqual({ count: 1, p50: 100, p95: 100 });
    expect(steps.grantedToCreated).toEqual({ count: 2, p50: 30, p95: 60 });
    // The second grant waited for the rate window (1,250), not for the gate: 20 ms, not 70.
    expect(steps.releasedToGranted).toEqual({ count: 2, p50: 20, p95: 50 });
  });
});
