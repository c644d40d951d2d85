// `npm run callbacks`: the receiver as its own process, configured from the environment. Logs through the
// SDK's Runtime logger (JSON lines, or pretty on a terminal); /metrics carries the SDK's client metrics and
// ours (rtg_callbacks_*). SIGTERM/SIGINT drain: readiness 503, then every callback in flight finishes.
import { Client } from '@temporalio/client';
import { dataConverterFromEnv, describeEncryption } from '../codec/data-converter.js';
import { loadCallbackConfig } from '../config/callbacks.js';
import { loadTemporalConfig } from '../config/temporal.js';
import { callbackMetrics } from '../observability/metrics.js';
import { installObservability } from '../observability/runtime.js';
import { loadDrainDelayMs, loadObservabilitySettings } from '../observability/settings.js';
import { startTracing } from '../observability/tracing.js';
import { connectToTemporal } from '../temporal/client-connection.js';
import { startCallbackServer } from './server.js';

async function main() {
  const temporal = loadTemporalConfig();
  const callbacks = loadCallbackConfig();
  const drainDelayMs = loadDrainDelayMs();
  if (!callbacks.secret) throw new Error('CALLBACK_SECRET is required to run the callback receiver');
  // Signals carry the callback's task record: encrypted like everything else when the keys are set.
  const dataConverter = dataConverterFromEnv();
  const {
    logger: log,
    meter,
    metricsUrl,
  } = await installObservability('callbacks', loadObservabilitySettings(), {
    metrics: true,
  });
  // With OTEL_EXPORTER_OTLP_ENDPOINT set, each signal is a span in the job's trace (client interceptor).
  const tracing = startTracing('review-video-callbacks');
  const connection = await connectToTemporal(temporal);
  const client = new Client({
    connection,
    namespace: temporal.namespace,
    plugins: tracing ? [tracing.plugin] : [],
    ...(dataConverter ? { dataConverter } : {}),
  });
  const metrics = callbackMetrics(meter);
  const server = await startCallbackServer({
    client,
    secret: callbacks.secret,
    host: callbacks.host,
    port: callbacks.port,
    metricsUrl,
    onOutcome: (o) => {
      metrics.record(o);
      // The workflow id is the caller's own business key: logged, never a metric label.
      const meta = { kind: o.kind, workflowId: o.workflowId, status: o.status, outcome: o.outcome };
      if (o.status >= 400) log.warn(`callback ${o.outcome}`, meta);
      else log.debug(`callback ${o.outcome}`, meta);
    },
  });
  log.info(`callback receiver listening on ${server.url} (public address ${callbacks.publicUrl ?? 'unset'})`, {
    url: server.url,
    publicUrl: callbacks.publicUrl ?? null,
    encryption: describeEncryption(dataConverter),
    paths: ['/callbacks/{review|video}/{workflowId}', '/healthz', '/readyz', '/metrics'],
  });
  if (!dataConverter)
    // Not refused: a deployment without encryption is valid. But the receiver cannot tell whether the
    // workers encrypt, and if they do, every signal it sends would sit in the history in clear.
    log.warn(
      "callback receiver: payload encryption is off: its signals (each callback's task record) are written in clear; when the workers set PAYLOAD_ENCRYPTION_KEYS, give this receiver the same keys",
      { encryption: 'off' },
    );
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info('callback receiver: draining', { signal, drainDelayMs, inFlight: server.inFlight });
    await server.drain(drainDelayMs);
    log.info('callback receiver: stopped');
    await tracing?.shutdown().catch(() => undefined);
    // Bounded: with Temporal already gone, closing the connection can wait on a dead peer.
    const forced = setTimeout(() => process.exit(0), 5_000);
    forced.unref();
    await connection.close().catch(() => undefined);
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((err: unknown) => {
  // The one line on stderr that says why the receiver did not start.
  process.stderr.write(`callback receiver: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
