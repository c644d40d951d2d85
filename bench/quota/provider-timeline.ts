// The provider's view of a quota run, from its request log alone: when each create went out, when each task
// was final, and therefore how long a slot the quotas allowed stood idle. Pure, so the arithmetic is tested
// on its own (bench/test/provider-timeline.test.ts) and the benchmark only gathers the timestamps.
//
// Two limits bind at once: `maxInFlight` tasks at a time, and `maxPerWindow` creates in any `windowMs`
// (a sliding window, as the sandbox and the gate count it). The k-th create past the first `maxInFlight`
// takes the slot that the k-th task to end gave back; it could not have gone out before that end, nor
// before the create `maxPerWindow` places earlier left the window. What it waited beyond both is idle time
// the package added: the goal of issue 36 is a p50 of at most 300 ms.
import { percentile, round } from '../lib/stats.js';

export interface Limits {
  maxInFlight: number;
  /** Undefined: no rate limit. */
  maxPerWindow?: number;
  windowMs: number;
}

/** The earliest each of `n` tasks of `durationMs` could be created under both limits, from `t0`. */
export function idealCreates(n: number, durationMs: number, limits: Limits, t0 = 0): number[] {
  const creates: number[] = [];
  for (let k = 0; k < n; k++) {
    let t = t0;
    if (k >= limits.maxInFlight) t = Math.max(t, creates[k - limits.maxInFlight]! + durationMs);
    if (limits.maxPerWindow !== undefined && k >= limits.maxPerWindow)
      t = Math.max(t, creates[k - limits.maxPerWindow]! + limits.windowMs);
    creates.push(t);
  }
  return creates;
}

export interface Turnover {
  /** When the slot was given back at the provider: the task that freed it became final. */
  freedAt: number;
  /** When the rate window let the next create go (0 when the window did not bind). */
  windowOpenAt: number;
  /** The next create on that slot, as the provider received it. */
  createdAt: number;
  /** createdAt minus the later of the two: what no quota forced. */
  idleMs: number;
}

/**
 * Pairs each task's end (sorted) with the create that reused its slot, and charges the gap beyond what the
 * rate window forced. `creates` and `ends` are provider timestamps (ms), in any order.
 */
export function turnovers(creates: number[], ends: number[], limits: Limits): Turnover[] {
  const c = [...creates].sort((a, b) => a - b);
  const e = [...ends].sort((a, b) => a - b);
  const out: Turnover[] = [];
  for (let k = limits.maxInFlight; k < c.length; k++) {
    const freedAt = e[k - limits.maxInFlight];
    if (freedAt === undefined) break;
    const windowOpenAt =
      limits.maxPerWindow !== undefined && k >= limits.maxPerWindow ? c[k - limits.maxPerWindow]! + limits.windowMs : 0;
    const createdAt = c[k]!;
    out.push({ freedAt, windowOpenAt, createdAt, idleMs: createdAt - Math.max(freedAt, windowOpenAt) });
  }
  return out;
}

export interface Spread {
  count: number;
  p50: number;
  p95: number;
}

export function spread(values: number[]): Spread | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  return { count: sorted.length, p50: round(percentile(sorted, 50), 0), p95: round(percentile(sorted, 95), 0) };
}

/** One freed slot's way to its next create, each step as the provider or a history timestamped it (ms). */
export interface ChainTimes {
  taskFinal: number;
  /** The provider's callback that the task was final, delivered. */
  callback?: number;
  /** The confirming query of that task, answered by the provider. */
  confirmed?: number;
  /** The job's release signal to the gate (its history). */
  released?: number;
  /** When the rate window let the next create go (0 when it did not bind). */
  windowOpenAt: number;
  /** The grant the next job got (its history), and that job's create at the provider. */
  granted?: number;
  created: number;
}

export interface ChainSteps {
  finalToCallback?: Spread;
  callbackToConfirmed?: Spread;
  confirmedToReleased?: Spread;
  releasedToGranted?: Spread;
  grantedToCreated?: Spread;
}

/** The p50 and p95 of each step, over the chains that have both of its ends. */
export function chainSteps(chains: ChainTimes[]): ChainSteps {
  const step = (from: keyof ChainTimes | 'gateFrom', to: keyof ChainTimes) =>
    spread(
      chains.flatMap((c) => {
        // The gate's step starts at the release, or when the rate window opened if that was later.
        const start =
          from === 'gateFrom' ? (c.released === undefined ? undefined : Math.max(c.released, c.windowOpenAt)) : c[from];
        const end = c[to];
        return start !== undefined && end !== undefined ? [end - start] : [];
      }),
    );
  const steps: ChainSteps = {};
  const set = (name: keyof ChainSteps, s: Spread | undefined) => {
    if (s) steps[name] = s;
  };
  set('finalToCallback', step('taskFinal', 'callback'));
  set('callbackToConfirmed', step('callback', 'confirmed'));
  set('confirmedToReleased', step('confirmed', 'released'));
  set('releasedToGranted', step('gateFrom', 'granted'));
  set('grantedToCreated', step('granted', 'created'));
  return steps;
}
