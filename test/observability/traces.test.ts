// Traces on a real run: the worker process exports OTLP/HTTP to a receiver this test starts; the test's
// client starts the jobs through the SDK's OpenTelemetry client interceptor. One trace per job, connected
// from the start call through the workflow and its activities to a span per HTTP request, with service,
// endpoint, status and attempt; no secret, prompt or media URL anywhere in the exported data.
import { randomBytes, randomUUID } from 'node:crypto';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { Resource } from '@opentelemetry/resources';
import { NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { Client } from '@temporalio/client';
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { imageJob } from '../support/stack.js';
import { testClient } from '../support/temporal.js';
import { startTracedWorker, type OtlpSpan, type TracedWorker } from './traced-worker.js';

let traced: TracedWorker;
let provider: NodeTracerProvider;
const secret = `cb-secret-${randomBytes(16).toString('hex')}`;
const taskQueue = `otel-${randomUUID()}`;

const attr = (s: OtlpSpan, key: string) => {
  const v = s.attributes?.find((a) => a.key === key)?.value;
  return v?.stringValue ?? (v?.intValue === undefined ? undefined : Number(v.intValue));
};

beforeAll(async () => {
  traced = await startTracedWorker(taskQueue, secret);
  provider = new NodeTracerProvider({
    resource: new Resource({ 'service.name': 'review-video-test-client' }),
    spanProcessors: [new SimpleSpanProcessor(new OTLPTraceExporter({ url: `${traced.endpoint}/v1/traces` }))],
  });
  provider.register();
}, 60_000);

afterAll(async () => {
  await provider?.shutdown();
  await traced?.close();
});

describe('OpenTelemetry traces of the worker', () => {
  it('exports one connected trace per job, start call to HTTP spans, and no secret', async () => {
    const base = await testClient();
    const client = new Client({
      connection: base.connection,
      namespace: inject('temporalNamespace'),
      interceptors: { workflow: [new OpenTelemetryWorkflowClientInterceptor()] },
    });
    const prompt = 'A lighthouse keeper paints the storm in silver';
    const media = 'https://cdn.example.com/people/otel-secret-path.jpg';
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
    const handles = await Promise.all(
      [1, 2].map((i) =>
        client.workflow.start('ReviewThenGenerate', {
          taskQueue,
          workflowId: `otel-${i}-${randomUUID()}`,
          args: [input],
        }),
      ),
    );
    await Promise.all(handles.map((h) => h.result()));
    const stopped = await traced.worker.stop();
    expect(stopped).toBe(0);
    await provider.forceFlush();

    const all = traced.spans();
    const starts = all.filter((s) => s.name.startsWith('StartWorkflow:ReviewThenGenerate'));
    expect(starts).toHaveLength(2);
    for (const start of starts) {
      const inTrace = all.filter((s) => s.traceId === start.traceId);
      const byId = new Map(inTrace.map((s) => [s.spanId, s]));
      // Every span of the trace reaches the start span through its parents.
      for (const s of inTrace) {
        let cur: OtlpSpan | undefined = s;
        for (let i = 0; cur && cur.spanId !== start.spanId && i < 50; i++)
          cur = cur.parentSpanId ? byId.get(cur.parentSpanId) : undefined;
        expect(cur?.spanId, `${s.name} connected to the start`).toBe(start.spanId);
      }
      const names = inTrace.map((s) => s.name);
      expect(names.some((n) => n.startsWith('RunWorkflow:ReviewThenGenerate'))).toBe(true);
      expect(names.some((n) => n.startsWith('RunActivity:'))).toBe(true);
      const http = inTrace.filter((s) => s.name.startsWith('HTTP '));
      expect(http.map((s) => attr(s, 'rtg.endpoint'))).toEqual(
        expect.arrayContaining(['review.submitAsync', 'review.query', 'video.create', 'video.get']),
      );
      for (const s of http) {
        expect(attr(s, 'rtg.service')).toMatch(/^(video|review)$/);
        expect(attr(s, 'http.response.status_code')).toBeGreaterThanOrEqual(200);
        expect(attr(s, 'rtg.attempt')).toBeGreaterThanOrEqual(1);
        // The HTTP span sits under an activity span.
        expect(byId.get(s.parentSpanId!)?.name).toMatch(/^RunActivity:/);
      }
    }
    const raw = traced.bodies.join('\n');
    for (const leaked of [traced.sandbox.apiKey, traced.sandbox.accessToken, secret, prompt, media, 'otel-secret-path'])
      expect(raw, 'exported spans').not.toContain(leaked);
  }, 120_000);
});
