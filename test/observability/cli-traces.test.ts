// Traces of a job started by the CLI: `review-video submit` in its own process exports its start span
// (service review-video-cli) before it exits, and the worker process's workflow, activity and HTTP spans
// join that span's trace. No secret, prompt or media URL in anything exported.
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/run-cli.js';
import { imageJob } from '../support/stack.js';
import { startTracedWorker, type OtlpSpan, type TracedWorker } from './traced-worker.js';

let traced: TracedWorker;
const secret = `cb-secret-${randomBytes(16).toString('hex')}`;
const taskQueue = `otel-cli-${randomUUID()}`;

beforeAll(async () => {
  traced = await startTracedWorker(taskQueue, secret);
}, 60_000);

afterAll(async () => {
  await traced?.close();
});

describe('OpenTelemetry traces of a CLI start', () => {
  it('the CLI exports its start span and the job runs in that trace', async () => {
    const prompt = 'A glassblower shapes a comet at midnight';
    const media = 'https://cdn.example.com/people/otel-cli-secret-path.jpg';
    const job = imageJob(media);
    const input = {
      ...job,
      callbacks: false,
      task: {
        ...job.task,
        content: [
          { type: 'text', text: prompt },
          { type: 'image_url', image_url: { url: media }, role: 'reference_image' },
        ],
      },
    };
    const key = `otel-cli-${randomUUID()}`;
    const run = await runCli(['submit', '--key', key, '--input', JSON.stringify(input), '--wait', '--json'], {
      taskQueue,
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: traced.endpoint,
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: undefined,
        OTEL_SERVICE_NAME: undefined,
        OTEL_SDK_DISABLED: undefined,
        OTEL_TRACES_SAMPLER: 'always_on',
        OTEL_BSP_SCHEDULE_DELAY: '200',
      },
    });
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ workflowId: key, status: 'succeeded' });
    // The CLI has exited: its span was flushed by close(). The worker flushes its own on stop.
    expect(await traced.worker.stop()).toBe(0);

    const all = traced.spans();
    const starts = all.filter((s) => s.service === 'review-video-cli' && s.name.startsWith('StartWorkflow:'));
    expect(starts, 'one start span from the CLI').toHaveLength(1);
    const start = starts[0]!;
    expect(start.name).toBe('StartWorkflow:ReviewThenGenerate');
    const inTrace = all.filter((s) => s.traceId === start.traceId);
    const byId = new Map(inTrace.map((s) => [s.spanId, s]));
    // Every span of the trace, the worker's included, reaches the CLI's start span through its parents.
    for (const s of inTrace) {
      let cur: OtlpSpan | undefined = s;
      for (let i = 0; cur && cur.spanId !== start.spanId && i < 50; i++)
        cur = cur.parentSpanId ? byId.get(cur.parentSpanId) : undefined;
      expect(cur?.spanId, `${s.name} connected to the CLI's start`).toBe(start.spanId);
    }
    const worked = inTrace.filter((s) => s.service === 'review-video-worker-test').map((s) => s.name);
    expect(worked).toContain('RunWorkflow:ReviewThenGenerate');
    expect(worked.some((n) => n.startsWith('RunActivity:'))).toBe(true);
    expect(worked.filter((n) => n.startsWith('HTTP ')).length).toBeGreaterThanOrEqual(4);

    const raw = traced.bodies.join('\n');
    for (const leaked of [
      traced.sandbox.apiKey,
      traced.sandbox.accessToken,
      secret,
      prompt,
      media,
      'otel-cli-secret-path',
    ])
      expect(raw, 'exported spans').not.toContain(leaked);
  }, 120_000);
});
