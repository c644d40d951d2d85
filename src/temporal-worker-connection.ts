// The worker's connection to Temporal: same address, namespace and envconfig rules as the clients.
import { NativeConnection } from '@temporalio/worker';
import type { TemporalConfig } from './config.js';
import { envconfigOptions } from './temporal-connection.js';

export async function connectWorkerToTemporal(temporal: TemporalConfig): Promise<NativeConnection> {
  return NativeConnection.connect(envconfigOptions(temporal));
}
