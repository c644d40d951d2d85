// OpenTelemetry traces, configured by the standard variables and off (no provider, no plugin, no cost)
// unless OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) is set. The SDK's
// OpenTelemetryPlugin traces the workflow and its activities; `httpSpans` adds one span per request to
// the services under the activity's span. The OTLP/HTTP exporter and the sampler read their own
// variables (OTEL_EXPORTER_OTLP_*, OTEL_TRACES_SAMPLER, OTEL_TRACES_SAMPLER_ARG, OTEL_SERVICE_NAME).
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { Resource } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { Context } from '@temporalio/activity';
import { OpenTelemetryPlugin } from '@temporalio/interceptors-opentelemetry';
import type { RequestInfo } from '../services/http.js';
import { statusClass } from './metrics.js';

type Env = Record<string, string | undefined>;

export interface Tracing {
  plugin: OpenTelemetryPlugin;
  /** Give to observeServiceRequests: a span per service call (no URL, header or body in it). */
  httpSpans(info: RequestInfo): void;
  /** Flushes the spans still buffered. */
  shutdown(): Promise<void>;
}

export function tracingEnabled(env: Env = process.env): boolean {
  return (
    Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) &&
    env.OTEL_SDK_DISABLED !== 'true'
  );
}

/** The activity attempt of the call, when it runs in an activity. */
function attempt(): number | undefined {
  try {
    return Context.current().info.attempt;
  } catch {
    return undefined;
  }
}

export function startTracing(defaultServiceName: string, env: Env = process.env): Tracing | undefined {
  if (!tracingEnabled(env)) return undefined;
  const resource = new Resource({ 'service.name': env.OTEL_SERVICE_NAME || defaultServiceName });
  const spanProcessor = new BatchSpanProcessor(new OTLPTraceExporter());
  const provider = new NodeTracerProvider({ resource, spanProcessors: [spanProcessor] });
  provider.register();
  const tracer = trace.getTracer('temporal-review-video');
  return {
    plugin: new OpenTelemetryPlugin({ resource, spanProcessor }),
    httpSpans(info) {
      const end = performance.timeOrigin + performance.now();
      const span = tracer.startSpan(`HTTP ${info.operation}`, {
        kind: SpanKind.CLIENT,
        startTime: end - info.durationMs,
        attributes: {
          'rtg.service': info.service,
          'rtg.endpoint': info.operation,
          'rtg.status_class': statusClass(info),
          'http.request.method': info.method,
          ...(info.status === undefined ? {} : { 'http.response.status_code': info.status }),
          ...(attempt() === undefined ? {} : { 'rtg.attempt': attempt() }),
        },
      });
      if (info.outcome !== 'response' || (info.status ?? 0) >= 400) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end(end);
    },
    shutdown: () => provider.shutdown(),
  };
}
