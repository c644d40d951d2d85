// A connected Temporal Client for our processes (the CLI), from the environment: TEMPORAL_ADDRESS,
// TEMPORAL_NAMESPACE, @temporalio/envconfig for API key / TLS / profiles, and payload encryption
// (PAYLOAD_ENCRYPTION_KEYS or _FILE) so that what it starts is encrypted and what it reads is decrypted.
import { Client } from '@temporalio/client';
import { dataConverterFromEnv } from '../codec/data-converter.js';
import { loadTemporalConfig, type TemporalConfig } from '../config.js';
import { connectToTemporal, unreachableMessage } from './client-connection.js';

export interface ConnectedClient {
  client: Client;
  config: TemporalConfig;
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
  return {
    client: new Client({ connection, namespace: config.namespace, ...(dataConverter ? { dataConverter } : {}) }),
    config,
    close: () => connection.close(),
  };
}
