// Installs the SDK's Runtime once per process, before any connection: our logger (the SDK's own logs,
// activity and workflow `log` go through it), Core's logs forwarded to it, and Core's Prometheus exporter
// on a loopback port that our ops endpoint serves as /metrics (so metrics, /healthz and /readyz share the
// one public port). Our own metrics use the same meter (Runtime.instance().metricMeter).
import { createServer } from 'node:net';
import type { Logger, MetricMeter } from '@temporalio/common';
import { Runtime, makeTelemetryFilterString } from '@temporalio/worker';
import { createLogger } from './logger.js';
import { HTTP_SECONDS_BUCKETS, METRIC_NAMES } from './metrics.js';
import type { ObservabilitySettings } from './settings.js';

export interface Observability {
  logger: Logger;
  meter: MetricMeter;
  /** Core's Prometheus exporter (loopback); undefined when metrics are off. */
  metricsUrl: string | undefined;
}

/** A port the OS says is free now (the exporter binds it right after). */
export function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      srv.close(() => (address && typeof address === 'object' ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

export async function installObservability(
  component: string,
  settings: ObservabilitySettings,
  options: { metrics: boolean },
): Promise<Observability> {
  const logger = createLogger({ level: settings.logLevel, format: settings.logFormat, component });
  const port = options.metrics ? await freeLoopbackPort() : undefined;
  const coreLevel = settings.logLevel === 'trace' || settings.logLevel === 'debug' ? 'INFO' : 'WARN';
  Runtime.install({
    logger,
    telemetryOptions: {
      logging: { forward: {}, filter: makeTelemetryFilterString({ core: coreLevel }) },
      ...(port === undefined
        ? {}
        : {
            metrics: {
              prometheus: {
                bindAddress: `127.0.0.1:${port}`,
                countersTotalSuffix: true,
                unitSuffix: true,
                useSecondsForDurations: true,
                histogramBucketOverrides: { [METRIC_NAMES.httpDuration]: HTTP_SECONDS_BUCKETS },
              },
            },
          }),
    },
  });
  return {
    logger,
    meter: Runtime.instance().metricMeter,
    metricsUrl: port === undefined ? undefined : `http://127.0.0.1:${port}/metrics`,
  };
}
