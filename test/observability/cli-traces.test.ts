// Traces of a job started by the CLI: `review-video submit` in its own process exports its start span
// (service review-video-cli) before it exits, and the worker process's workflow, activity and HTTP spans
// join that span's trace. No secret, prompt or media URL in anything exported.
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/index.js';
import type { Sandbox } from '../../src/sandbox/types.js';
import { runCli } from '../support/run-cli.js';
import { imageJob } from '../support/stack.js';
import { temporalAddress } from '../support/temporal.js';
import { startWorkerProcess, type WorkerProcess } from '../support/worker-process.js';

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  service?: string;
}
interface OtlpBody {
  resourceSpans?: {
    resource?: { attributes?: { key: string; value: { stringValue?: string } }[] };
    scopeSpans?: { spans?: OtlpSpan[] }[];
  }[];
}

let receiver: Server;
let endpoint: string;
const bodies: string[] = [];
let sandbox: Sandbox;
let worker: WorkerProcess;
const secret = `cb-secret-${randomBytes(16).toString('hex')}`;
const taskQueue = `otel-cli-${randomUUID()}`;

/** Every exported span, with the service.name of the resource it came with. */
function spans(): OtlpSpan[] {
  return bodies.flatMap((b) =>
    ((JSON.parse(b) as OtlpBody).resourceSpans ?? []).flatMap((r) => {
      const service = r.resource?.attributes?.find((a) => a.key === 'service.name')?.value.stringValue;
      return (r.scopeSpans ?? []).flatMap((s) => (s.spans ?? []).map((span) => ({ ...span, service })));
    }),
  );
}

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      if (req.url === '/v1/traces') bodies.push(body);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  sandbox = await startSandbox({ allowPrivateUrls: true });
  worker = await startWorkerProcess({
    TEMPORAL_ADDRESS: temporalAddress(),
    TEMPORAL_NAMESPACE: inject('temporalNamespace'),
    TEMPORAL_TASK_QUEUE: taskQueue,
    VIDEO_API_BASE_URL: sandbox.videoBaseUrl,
    VIDEO_API_KEY: sandbox.apiKey,
    REVIEW_API_BASE_URL: sandbox.reviewBaseUrl,
    REVIEW_ACCESS_TOKEN: sandbox.accessToken,
    ALLOW_PRIVATE_URLS: 'true',
    CALLBACK_SECRET: secret,
    OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
    OTEL_SERVICE_NAME: 'review-video-worker-test',
    OTEL_TRACES_SAMPLER: 'always_on',
    OTEL_BSP_SCHEDULE_DELAY: '200',
    LOG_FORMAT: 'json',
  });
}, 60_000);

afterAll(async () => {
  await worker?.stop();
  await sandbox?.close();
  await new Promise((r) => receiver?.close(r));
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
        OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
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
    expect(await worker.stop()).toBe(0);

    const all = spans();
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

    const raw = bodies.join('\n');
    for (const leaked of [sandbox.apiKey, sandbox.accessToken, secret, prompt, media, 'otel-cli-secret-path'])
      expect(raw, 'exported spans').not.toContain(leaked);
  }, 120_000);
});
