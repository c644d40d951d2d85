// `npm run callbacks`: the receiver as its own process, configured from the environment.
import { Client } from '@temporalio/client';
import { loadCallbackConfig, loadTemporalConfig } from '../config.js';
import { connectToTemporal } from '../temporal/client-connection.js';
import { startCallbackServer } from './server.js';

async function main() {
  const temporal = loadTemporalConfig();
  const callbacks = loadCallbackConfig();
  if (!callbacks.secret) throw new Error('CALLBACK_SECRET is required to run the callback receiver');
  const connection = await connectToTemporal(temporal);
  const client = new Client({ connection, namespace: temporal.namespace });
  const server = await startCallbackServer({
    client,
    secret: callbacks.secret,
    host: callbacks.host,
    port: callbacks.port,
    onOutcome: (o) => {
      if (o.status >= 400) console.warn(`callback ${o.kind ?? '-'} ${o.workflowId ?? '-'}: ${o.status} ${o.outcome}`);
    },
  });
  console.log(`callback receiver listening on ${server.url} (public address ${callbacks.publicUrl ?? 'unset'})`);
  const stop = async () => {
    // Bounded: with Temporal already gone, closing the connection can wait on a dead peer.
    const forced = setTimeout(() => process.exit(0), 5_000);
    forced.unref();
    await server.close();
    await connection.close().catch(() => undefined);
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((err: unknown) => {
  console.error(`callback receiver: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
