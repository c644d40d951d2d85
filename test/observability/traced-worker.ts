// What the trace tests share: an OTLP/HTTP receiver that keeps every export body, a sandbox, and our
// worker process exporting its spans there (always sampled, flushed every 200 ms).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inject } from 'vitest';
import { startSandbox } from 'temporal-review-video-sandbox';
import type { Sandbox } from 'temporal-review-video-sandbox';
import { temporalAddress } from '../support/temporal.js';
import { sandboxServiceEnv } from '../support/services-stack.js';
import { startWorkerProcess, type WorkerProcess } from '../support/worker-process.js';

export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes?: { key: string; value: { stringValue?: string; intValue?: string | number } }[];
  /** service.name of the resource the span came with. */
  service?: string;
}

interface OtlpBody {
  resourceSpans?: {
    resource?: { attributes?: { key: string; value: { stringValue?: string } }[] };
    scopeSpans?: { spans?: OtlpSpan[] }[];
  }[];
}

export interface TracedWorker {
  /** Base URL of the receiver, as OTEL_EXPORTER_OTLP_ENDPOINT takes it. */
  endpoint: string;
  /** The raw export bodies, to search for what must never be exported. */
  bodies: string[];
  sandbox: Sandbox;
  worker: WorkerProcess;
  /** Every exported span so far. */
  spans(): OtlpSpan[];
  close(): Promise<void>;
}

/** The worker's spans carry service.name `review-video-worker-test`. */
export async function startTracedWorker(taskQueue: string, callbackSecret: string): Promise<TracedWorker> {
  const bodies: string[] = [];
  const receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      if (req.url === '/v1/traces') bodies.push(body);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  const sandbox = await startSandbox({ allowPrivateUrls: true });
  const worker = await startWorkerProcess({
    TEMPORAL_ADDRESS: temporalAddress(),
    TEMPORAL_NAMESPACE: inject('temporalNamespace'),
    TEMPORAL_TASK_QUEUE: taskQueue,
    ...sandboxServiceEnv(sandbox),
    CALLBACK_SECRET: callbackSecret,
    OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
    OTEL_SERVICE_NAME: 'review-video-worker-test',
    OTEL_TRACES_SAMPLER: 'always_on',
    OTEL_BSP_SCHEDULE_DELAY: '200',
    LOG_FORMAT: 'json',
  });
  return {
    endpoint,
    bodies,
    sandbox,
    worker,
    spans: () =>
      bodies.flatMap((b) =>
        ((JSON.parse(b) as OtlpBody).resourceSpans ?? []).flatMap((r) => {
          const service = r.resource?.attributes?.find((a) => a.key === 'service.name')?.value.stringValue;
          return (r.scopeSpans ?? []).flatMap((s) => (s.spans ?? []).map((span) => ({ ...span, service })));
        }),
      ),
    async close() {
      await worker.stop();
      await sandbox.close();
      await new Promise((r) => receiver.close(r));
    },
  };
}
