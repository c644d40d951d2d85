// A connected Temporal Client for our processes (the CLI), from the environment: TEMPORAL_ADDRESS,
// TEMPORAL_NAMESPACE, @temporalio/envconfig for API key / TLS / profiles, and payload encryption
// (PAYLOAD_ENCRYPTION_KEYS or _FILE) so that what it starts is encrypted and what it reads is decrypted.
// With OTEL_EXPORTER_OTLP_ENDPOINT set, each start is a span that roots the job's trace.
import { Client } from '@temporalio/client';
import { dataConverterFromEnv } from '../codec/data-converter.js';
import { loadTemporalConfig } from '../config/temporal.js';
import { type TemporalConfig } from '../config/types.js';
import { startTracing } from '../observability/tracing.js';
import { connectToTemporal, unreachableMessage } from './client-connection.js';

export interface ConnectedClient {
  client: Client;
  config: TemporalConfig;
  /** Flushes the buffered spans (a CLI process exits right after), then closes the connection. */
  close(): Promise<void>;
}

export async function connectClient(env: Record<string, string | undefined> = process.env): Promise<ConnectedClient> {
  const config = loadTemporalConfig(env);
  const dataConverter = dataConverterFromEnv(env);
  let connection;
  try {
    connection = await connectToTemporal(config);
  } catch (err) {
    throw new Error(unreachableMessage(config, err), { cause: err });
  }
  // Started only once connected, so a failed connect leaves no provider behind; unset, no cost at all.
  const tracing = startTracing('review-video-cli', env);
  return {
    client: new Client({
      connection,
      namespace: config.namespace,
      plugins: tracing ? [tracing.plugin] : [],
      ...(dataConverter ? { dataConverter } : {}),
    }),
    config,
    async close() {
      // An unreachable collector must not turn a finished command into a failure.
      await tracing?.shutdown().catch(() => undefined);
      await connection.close();
    },
  };
}
