// The worker's connection to Temporal (a NativeConnection): same address and envconfig rules as the clients.
// Its own file, so that only worker code loads @temporalio/worker.
import { NativeConnection } from '@temporalio/worker';
import type { TemporalConfig } from '../config/types.js';
import { envconfigOptions } from './client-connection.js';

export async function connectWorkerToTemporal(temporal: TemporalConfig): Promise<NativeConnection> {
  return NativeConnection.connect(envconfigOptions(temporal));
}
