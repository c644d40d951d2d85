// The creates-per-window limit counts creates, not grants (gate-rate.ts): a run tells the gate when its
// create was answered, with its release, and at once when that was after the grant's sendBy. Here every
// create is answered late: the sandbox answers 1.5 s after it counted the create, past the gate's 1 s
// margin. bench:quota (issue 36) met the case it guards: creates that reached the provider seconds after
// their grants, and 429s when the gate reopened its window before the provider's.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { RATE_MARGIN_MS } from '../../src/workflows/admission/gate-rate.js';
import { gateSignals } from '../support/gate-signals.js';
import { textJob, videoCreateTimes, withStack, type Stack } from '../support/stack.js';

const WINDOW_MS = 2_000;
const LATENCY_MS = RATE_MARGIN_MS + 500;
const key = `video@late-${randomUUID()}`;
let stack: Stack;
withStack(
  {
    sandbox: { latencyMs: LATENCY_MS },
    httpTimeoutMs: 10_000,
    admission: { video: { key, byModel: {}, maxCreatesPerMinute: 2, createsWindowMs: WINDOW_MS } },
  },
  (s) => (stack = s),
);

describe('a create answered after its grant’s sendBy', () => {
  it('is reported at once (slotSent) and again with its release; no 429, never 3 creates in a window', async () => {
    stack.sandbox.setQuotas({ videoMaxCreatesPerMinute: 2, quotaWindowMs: WINDOW_MS });
    const run = randomUUID().slice(0, 8);
    stack.sandbox.setVideoOutcome({ promptIncludes: run }, 'succeeded', 200);
    const handles = await Promise.all(Array.from({ length: 4 }, (_, i) => stack.start(textJob(`late ${run} ${i}`))));
    const results = await Promise.all(handles.map((h) => h.result()));
    expect(results.map((r) => r.state)).toEqual(Array(4).fill('succeeded'));
    expect(stack.sandbox.quotaStats().video).toMatchObject({ admitted: 4, refused: 0 });
    const creates = videoCreateTimes(stack.sandbox);
    for (let i = 2; i < creates.length; i++) expect(creates[i]! - creates[i - 2]!).toBeGreaterThan(WINDOW_MS);

    const signals = await gateSignals(key);
    const late = signals.filter((s) => s.name === 'slotSent');
    const released = signals.filter((s) => s.name === 'releaseSlot');
    expect(late).toHaveLength(4);
    expect(released).toHaveLength(4);
    // The release repeats the same answer time; each is after the provider counted its create.
    const sentAt = (s: { input: Record<string, unknown> }) => [s.input.requestId, s.input.sentAt] as const;
    expect(new Map(released.map(sentAt))).toEqual(new Map(late.map(sentAt)));
    const answered = late.map((s) => s.input.sentAt as number).sort((a, b) => a - b);
    answered.forEach((at, i) => expect(at).toBeGreaterThanOrEqual(creates[i]! + LATENCY_MS));
  });
});
