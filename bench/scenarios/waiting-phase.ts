// Scenario 6 as the plan runs it: our default worker with up to `callbacksTarget` jobs waiting for their
// review callback (the 10,000 of issue 15 in the full plan: it gets the time first), then jobs polling a
// long generation on the same worker, then, with the time left, the compare configs (Node's default V8 heap limit, the
// SDK's own sticky cache), so that one run shows what each setting changes.
import type { Harness, ProfileEnv } from '../lib/harness.js';
import { startProfileEnv } from '../lib/harness.js';
import { MAIN_WORKER_CONFIG, WORKER_CONFIGS, type Plan } from '../plan.js';
import type { Profile } from '../profiles.js';
import type { WaitingResult } from '../results.js';
import { warmUp } from './throughput.js';
import { runWaiting } from './waiting.js';

const HOUR = 3_600_000;

export interface WaitingPhase {
  plan: Plan;
  profile: Profile;
  deadline: number;
  label: (what: string) => string;
  log: (line: string) => void;
  /** Each result as soon as it is measured: a later failure must not lose it. */
  record: (w: WaitingResult) => void;
}

/** Reviews and generations outlast the scenario; polling jobs get a short review (see runWaiting). */
async function waitingEnv(h: Harness, p: WaitingPhase, config: string): Promise<ProfileEnv> {
  const env = await startProfileEnv(h, p.profile, config, WORKER_CONFIGS[config]!, {
    reviewDurationMs: HOUR,
    videoDurationMs: HOUR,
  });
  try {
    await warmUp(h, env, p.plan.warmup, p.label(`warmup-waiting-${config}`));
    return env;
  } catch (err) {
    await env.stop();
    throw err;
  }
}

const rss = (w: WaitingResult) =>
  `RSS ${w.workerRssIdle.value} -> ${w.workerRssWaiting.value} MiB with ${w.jobs} waiting, ${w.cachedWorkflows.value} cached`;

export async function runWaitingPhase(h: Harness, p: WaitingPhase): Promise<void> {
  const w = p.plan.waiting;
  const common = { windowMs: w.windowMs, videoPollIntervalMs: w.videoPollIntervalMs, log: p.log };
  // The polling wait and the compare config come after: time kept for them, the rest to the big one.
  const pollingReserve = w.windowMs + 60_000;
  // The compare configs get at most half of what is left after the polling wait, and at most 12 minutes.
  const compareReserve = w.compare.length ? Math.min((p.deadline - Date.now() - pollingReserve) / 2, 12 * 60_000) : 0;
  const env = await waitingEnv(h, p, MAIN_WORKER_CONFIG);
  try {
    p.log(
      `scenario 6: up to ${w.callbacksTarget} jobs waiting for their review callback (worker '${MAIN_WORKER_CONFIG}', cache ${env.worker.maxCachedWorkflows})`,
    );
    // Callback waiters first: polling waiters keep polling and would show in the callback window.
    const cb = await runWaiting(h, env, {
      ...common,
      label: p.label('wait-callbacks'),
      target: w.callbacksTarget,
      chunk: w.chunk,
      chunkPastCache: w.chunkPastCache,
      mode: 'callbacks',
      deadline: p.deadline - pollingReserve - compareReserve - w.windowMs,
    });
    p.record(cb);
    p.log(
      `  ${rss(cb)}; running activities max ${cb.runningActivities.max.value}; ${cb.apiCallsDuringWindow.value} calls in ${cb.window.value} s`,
    );
    p.log(`scenario 4: ${w.pollingJobs} jobs polling a long generation every ${w.videoPollIntervalMs / 1000} s`);
    const polling = await runWaiting(h, env, {
      ...common,
      label: p.label('wait-polling'),
      target: w.pollingJobs,
      chunk: w.pollingJobs,
      mode: 'polling',
      deadline: p.deadline - compareReserve - w.windowMs,
    });
    p.record(polling);
    p.log(
      `  running activities mean ${polling.runningActivities.mean.value}, max ${polling.runningActivities.max.value}; ${polling.apiCallsDuringWindow.value} calls in ${polling.window.value} s`,
    );
  } finally {
    await env.stop();
  }
  for (const [i, { config, upTo }] of w.compare.entries()) {
    // A config waiting past its cache needs about 4 minutes: kept for those that come later.
    const later = w.compare.slice(i + 1).filter((x) => x.upTo === 'past-cache').length * 4 * 60_000;
    if (Date.now() + 60_000 > p.deadline - later) {
      p.log(`scenario 6: no time left for worker '${config}'`);
      break;
    }
    const other = await waitingEnv(h, p, config);
    try {
      // Past its cache by one large chunk shows eviction; no need to repeat the whole ramp.
      const cache = other.worker.maxCachedWorkflows;
      const target = upTo === 'target' ? w.callbacksTarget : cache + w.chunkPastCache;
      p.log(`scenario 6: the same wait with worker '${config}' (cache ${cache}), up to ${target} jobs`);
      const c = await runWaiting(h, other, {
        ...common,
        label: p.label(`wait-callbacks-${config}`),
        target,
        chunk: upTo === 'target' ? w.chunk : w.chunkPastCache,
        chunkPastCache: w.chunkPastCache,
        mode: 'callbacks',
        deadline: p.deadline - later - w.windowMs,
      });
      p.record(c);
      p.log(`  ${rss(c)}`);
    } finally {
      await other.stop();
    }
  }
}
