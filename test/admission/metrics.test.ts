// The admission metrics (docs/operations.md, "Metrics"), scraped from our worker process's /metrics: one
// worker runs the jobs and the gates, configured for 2 video and 2 review tasks in flight against
// services allowing 1 of each, so that jobs wait and are refused. Counts against the sandbox's own.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { defaultQuotaKey, defaultVideoQuotaKey } from '../../src/config/admission.js';
import { freePort } from '../../src/dev/temporal-dev-server.js';
import { GATE_METRIC_NAMES } from '../../src/workflows/admission/gate-metrics.js';
import { JOB_METRIC_NAMES } from '../../src/workflows/job-metrics.js';
import { metricSum } from '../observability/processes.js';
import { imageJob, withStack, type Stack } from '../support/stack.js';
import { until } from '../support/until.js';

const metricsAddress = `127.0.0.1:${await freePort()}`;
let stack: Stack;
withStack(
  {
    noWorker: true,
    workerProcesses: 1,
    admissionEnv: {
      VIDEO_MAX_TASKS_IN_FLIGHT: '2',
      REVIEW_MAX_TASKS_IN_FLIGHT: '2',
      PROMETHEUS_BIND_ADDRESS: metricsAddress,
    },
  },
  (s) => (stack = s),
);

const scrape = async () => (await fetch(`http://${metricsAddress}/metrics`)).text();

describe('admission metrics', () => {
  it('count the waits and the refusals, and show the quota free again at the end', async () => {
    stack.sandbox.reset();
    stack.sandbox.setQuotas({ videoMaxTasksInFlight: 1, reviewMaxTasksInFlight: 1 });
    const run = randomUUID().slice(0, 8);
    // Short reviews, long videos: the reviews, one at a time, still end while a video holds its one slot.
    // A review lasts 1 s so that the second slot's submit meets the first task in flight however loaded the
    // machine (100 ms ones had ended before it on a busy run, and nothing was refused).
    stack.sandbox.setVideoOutcome({ promptIncludes: run }, 'succeeded', 3_000);
    const handles = await Promise.all(
      Array.from({ length: 4 }, (_, i) => {
        const url = `https://cdn.example.com/people/metrics-${run}-${i}.jpg`;
        stack.sandbox.setReviewTaskOutcome({ url }, 'completed', 1_000);
        const input = imageJob(url);
        input.task = {
          ...input.task,
          content: [
            { type: 'text', text: `metrics ${run} ${i}` },
            { type: 'image_url', image_url: { url } },
          ],
        };
        return stack.start(input);
      }),
    );
    await Promise.all(handles.map((h) => h.result()));
    const { video, review } = stack.sandbox.quotaStats();
    expect(video.refused).toBeGreaterThan(0);
    expect(review.refused).toBeGreaterThan(0);
    const quota_key = defaultVideoQuotaKey(stack.sandbox.videoBaseUrl);
    const review_key = defaultQuotaKey('review', stack.sandbox.reviewBaseUrl);
    // Metrics are exported as they are scraped: the gate's last report follows the last release.
    let text = '';
    await until(async () => {
      text = await scrape();
      return (
        metricSum(text, GATE_METRIC_NAMES.inFlight, { quota_key }) === 0 && text.includes(GATE_METRIC_NAMES.waiting)
      );
    }, 'the gate to report every slot back');
    expect(metricSum(text, `${JOB_METRIC_NAMES.admissionWait}_count`, { quota_key })).toBe(4);
    expect(metricSum(text, JOB_METRIC_NAMES.admissionRefusals, { quota_key, service: 'video' })).toBe(video.refused);
    // Each 429 is counted for the service that answered it.
    expect(metricSum(text, JOB_METRIC_NAMES.admissionRefusals, { quota_key: review_key, service: 'review' })).toBe(
      review.refused,
    );
    expect(metricSum(text, JOB_METRIC_NAMES.admissionRefusals, { quota_key: review_key, service: 'video' })).toBe(0);
    expect(metricSum(text, GATE_METRIC_NAMES.waiting, { quota_key })).toBe(0);
    expect(metricSum(text, GATE_METRIC_NAMES.capacity, { quota_key, kind: 'configured' })).toBe(2);
  });
});
