// The admission metrics (docs/operations.md, "Metrics"), scraped from our worker process's /metrics: one
// worker runs the jobs and the gate, configured for 2 tasks in flight against a provider allowing 1, so
// that it waits and is refused. Counts against the sandbox's own.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { defaultVideoQuotaKey } from '../../src/config-admission.js';
import { freePort } from '../../src/dev/temporal-dev-server.js';
import { GATE_METRIC_NAMES } from '../../src/workflows/admission/gate-metrics.js';
import { JOB_METRIC_NAMES } from '../../src/workflows/job-metrics.js';
import { metricSum } from '../observability/processes.js';
import { fastTiming, withStack, type Stack } from '../support/stack.js';
import { until } from '../support/until.js';

const metricsAddress = `127.0.0.1:${await freePort()}`;
let stack: Stack;
withStack(
  {
    noWorker: true,
    workerProcesses: 1,
    admissionEnv: { VIDEO_MAX_TASKS_IN_FLIGHT: '2', PROMETHEUS_BIND_ADDRESS: metricsAddress },
  },
  (s) => (stack = s),
);

const scrape = async () => (await fetch(`http://${metricsAddress}/metrics`)).text();

describe('admission metrics', () => {
  it('count the waits and the refusals, and show the quota free again at the end', async () => {
    stack.sandbox.reset();
    stack.sandbox.setQuotas({ videoMaxTasksInFlight: 1 });
    const run = randomUUID().slice(0, 8);
    stack.sandbox.setVideoOutcome({ promptIncludes: run }, 'succeeded', 300);
    const handles = await Promise.all(
      Array.from({ length: 4 }, (_, i) =>
        stack.start({
          task: { model: 'video-model-1', content: [{ type: 'text', text: `metrics ${run} ${i}` }], duration: 5 },
          timing: fastTiming,
        }),
      ),
    );
    await Promise.all(handles.map((h) => h.result()));
    const refused = stack.sandbox.quotaStats().video.refused;
    expect(refused).toBeGreaterThan(0);
    const quota_key = defaultVideoQuotaKey(stack.sandbox.videoBaseUrl);
    // Metrics are exported as they are scraped: the gate's last report follows the last release.
    let text = '';
    await until(async () => {
      text = await scrape();
      return (
        metricSum(text, GATE_METRIC_NAMES.inFlight, { quota_key }) === 0 && text.includes(GATE_METRIC_NAMES.waiting)
      );
    }, 'the gate to report every slot back');
    expect(metricSum(text, `${JOB_METRIC_NAMES.admissionWait}_count`, { quota_key })).toBe(4);
    expect(metricSum(text, JOB_METRIC_NAMES.admissionRefusals, { quota_key, service: 'video' })).toBe(refused);
    expect(metricSum(text, GATE_METRIC_NAMES.waiting, { quota_key })).toBe(0);
    expect(metricSum(text, GATE_METRIC_NAMES.capacity, { quota_key, kind: 'configured' })).toBe(2);
  });
});
