// The client connection to Temporal (callback receiver, CLI), and the address rules the worker's shares:
// TEMPORAL_ADDRESS from our config, API key, TLS and profiles through @temporalio/envconfig.
// Free of @temporalio/worker, so client-only code never loads its native module.
import { Connection } from '@temporalio/client';
import { loadClientConnectConfig } from '@temporalio/envconfig';
import type { TemporalConfig } from '../config/types.js';

export function envconfigOptions(temporal: TemporalConfig) {
  let base: Record<string, unknown> = {};
  try {
    base = { ...loadClientConnectConfig().connectionOptions };
  } catch {
    // No profile file or an unreadable one: plain address from our config.
  }
  // An explicit TEMPORAL_ADDRESS (or our default when no profile names one) wins.
  const address = process.env.TEMPORAL_ADDRESS || (base.address as string | undefined) || temporal.address;
  return { ...base, address };
}

/** A one-line reason, for "cannot reach the server" exits. */
export function unreachableMessage(temporal: TemporalConfig, err: unknown): string {
  const why = err instanceof Error ? err.message.split('\n')[0] : String(err);
  return `cannot reach the Temporal server at ${temporal.address} (namespace ${temporal.namespace}): ${why}`;
}

export async function connectToTemporal(temporal: TemporalConfig): Promise<Connection> {
  return Connection.connect({ ...envconfigOptions(temporal), connectTimeout: '10s' });
}
