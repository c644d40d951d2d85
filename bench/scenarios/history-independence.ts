// Scenario 4, last part: history events per job do not depend on how long review and generation take.
// The same jobs with short and with long (N times longer) review and generation, both modes.
import type { Harness, ProfileEnv } from '../lib/harness.js';
import { runLoad } from '../lib/load.js';
import { apiCalls } from '../lib/sandbox-metrics.js';
import { summarize } from '../lib/stats.js';
import { packageStarter, planJobs, type Mode } from '../profiles.js';
import { fig, sfig, type HistoryIndependence } from '../results.js';

export async function runHistoryIndependence(
  h: Harness,
  env: ProfileEnv,
  o: { label: string; jobs: number; mode: Mode; reviewMs: number; videoMs: number; timeoutMs: number },
): Promise<HistoryIndependence> {
  const { sandbox } = env;
  sandbox.reset();
  const jobs = planJobs(o.label, o.jobs, env.profile);
  for (const j of jobs) {
    sandbox.setReviewTaskOutcome({ url: j.imageUrl }, 'completed', o.reviewMs);
    sandbox.setVideoOutcome({ promptIncludes: j.marker }, 'succeeded', o.videoMs);
  }
  const load = await runLoad({
    client: h.client,
    label: o.label,
    n: o.jobs,
    start: packageStarter(h.client, env.taskQueue, o.label, jobs, o.mode, env.profile.timing),
    timeoutMs: o.timeoutMs,
  });
  const done = load.records.filter((r) => r.status === 'COMPLETED');
  return {
    mode: o.mode,
    reviewMs: o.reviewMs,
    videoMs: o.videoMs,
    jobs: done.length,
    apiCallsPerJob: fig(apiCalls(sandbox.requests(), done.length).perJob, 'calls/job'),
    historyEvents: sfig(summarize(done.map((r) => r.historyLength)), 'events/job'),
  };
}
