// What the benchmark worker installs before it connects: the SDK's Runtime with metrics and our metrics
// (as src/worker.ts does with PROMETHEUS_BIND_ADDRESS), and OpenTelemetry traces sampled at a ratio (as
// with OTEL_EXPORTER_OTLP_ENDPOINT and OTEL_TRACES_SAMPLER=parentbased_traceidratio), or neither.
import { DefaultLogger, Runtime, type WorkerOptions } from '@temporalio/worker';
import { serviceRequestMetrics } from '../../src/observability/metrics.js';
import { installObservability } from '../../src/observability/runtime.js';
import { startTracing } from '../../src/observability/tracing.js';
import { observeServiceRequests } from '../../src/services/http.js';
import type { WorkerObservability } from './protocol.js';

/** Prometheus scrapes every 15 s in our compose stack (deploy/prometheus.yml); the benchmark scrapes more often. */
const SCRAPE_EVERY_MS = 5_000;

export interface InstalledObservability {
  plugins: NonNullable<WorkerOptions['plugins']>;
  stop(): Promise<void>;
}

export async function installBenchObservability(o: WorkerObservability | undefined): Promise<InstalledObservability> {
  const stops: Array<() => unknown> = [];
  if (o?.metrics) {
    const { meter, metricsUrl } = await installObservability(
      'worker',
      { logLevel: 'warn', logFormat: 'json', prometheusBindAddress: undefined },
      { metrics: true },
    );
    stops.push(observeServiceRequests(serviceRequestMetrics(meter).observe));
    const scraper = setInterval(() => {
      void fetch(metricsUrl!)
        .then((r) => r.text())
        .catch(() => undefined);
    }, SCRAPE_EVERY_MS);
    stops.push(() => clearInterval(scraper));
  } else {
    // Worker state changes at INFO would drown the benchmark's own output.
    Runtime.install({ logger: new DefaultLogger('WARN') });
  }
  if (o?.tracingRatio !== undefined && o.otlpEndpoint) {
    // As a user sets them; the exporter and the sampler read them from the process environment.
    Object.assign(process.env, {
      OTEL_EXPORTER_OTLP_ENDPOINT: o.otlpEndpoint,
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: String(o.tracingRatio),
    });
    const tracing = startTracing('bench-worker');
    if (!tracing) throw new Error('tracing did not start');
    stops.push(observeServiceRequests(tracing.httpSpans));
    stops.push(() => tracing.shutdown());
    return { plugins: [tracing.plugin], stop: () => stopAll(stops) };
  }
  return { plugins: [], stop: () => stopAll(stops) };
}

async function stopAll(stops: Array<() => unknown>): Promise<void> {
  for (const stop of stops.reverse()) await stop();
}
