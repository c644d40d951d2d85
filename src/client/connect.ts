// A Temporal client for our processes and scripts, from the environment (TEMPORAL_ADDRESS,
// TEMPORAL_NAMESPACE, and @temporalio/envconfig for API key / TLS / profiles).
import { Client } from '@temporalio/client';
import { loadTemporalConfig, type TemporalConfig } from '../config.js';
import { connectToTemporal, unreachableMessage } from '../temporal-connection.js';

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
    throw new Error(unreachableMessage(config, err));
  }
  return { client: new Client({ connection, namespace: config.namespace }), config, close: () => connection.close() };
}
