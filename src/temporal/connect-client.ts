// A connected Temporal Client for our processes (the CLI), from the environment: TEMPORAL_ADDRESS,
// TEMPORAL_NAMESPACE, and @temporalio/envconfig for API key / TLS / profiles.
import { Client } from '@temporalio/client';
import { loadTemporalConfig, type TemporalConfig } from '../config.js';
import { connectToTemporal, unreachableMessage } from './client-connection.js';

export interface ConnectedClient {
  client: Client;
  config: TemporalConfig;
  close(): Promise<void>;
}

export async function connectClient(env: Record<string, string | undefined> = process.env): Promise<ConnectedClient> {
  const config = loadTemporalConfig(env);
  let connection;
  try {
    connection = await connectToTemporal(config);
  } catch (err) {
    throw new Error(unreachableMessage(config, err), { cause: err });
  }
  return { client: new Client({ connection, namespace: config.namespace }), config, close: () => connection.close() };
}
