// `npm run codec-server` (compose: `node dist/codec/main.js`): the Web UI's remote codec endpoint, configured
// from the environment: PAYLOAD_ENCRYPTION_KEYS or PAYLOAD_ENCRYPTION_KEYS_FILE, CODEC_HOST, CODEC_PORT,
// CODEC_CORS_ORIGINS, CODEC_AUTH_TOKEN. One log line per call (path, status, origin, namespace; never a
// payload or a token). Stops on SIGINT/SIGTERM. Exits 1 with one line when a setting is invalid.
import { loadCodecServerConfig } from '../config/encryption.js';
import { isMainModule } from '../is-main.js';
import { createLogger } from '../observability/logger.js';
import { loadObservabilitySettings } from '../observability/settings.js';
import { PayloadEncryptionCodec } from './encryption-codec.js';
import { loadPayloadKeys } from './keys.js';
import { startCodecServer } from './server.js';

async function main(): Promise<void> {
  const config = loadCodecServerConfig();
  const keys = loadPayloadKeys();
  const { logLevel, logFormat } = loadObservabilitySettings();
  const log = createLogger({ level: logLevel, format: logFormat, component: 'codec-server' });
  const codec = keys ? new PayloadEncryptionCodec(keys) : undefined;
  const server = await startCodecServer({
    codec,
    corsOrigins: config.corsOrigins,
    authToken: config.authToken,
    host: config.host,
    port: config.port,
    onOutcome: (o) => {
      const meta = { ...o };
      if (o.status >= 400) log.warn(`codec ${o.path} ${o.status}`, meta);
      else log.debug(`codec ${o.path} ${o.status}`, meta);
    },
  });
  log.info(`codec server listening on ${server.url}`, {
    url: server.url,
    keys: codec ? codec.keyIds : [],
    encryptingKeyId: codec?.encryptingKeyId ?? null,
    corsOrigins: config.corsOrigins,
    auth: config.authToken ? 'bearer token' : 'none',
  });
  if (!codec) log.warn('codec server: no keys (PAYLOAD_ENCRYPTION_KEYS unset): payloads pass through unchanged');
  if (config.corsOrigins.length === 0)
    log.warn('codec server: CODEC_CORS_ORIGINS unset: no browser (Web UI) may call it');
  const stop = (signal: string) => {
    log.info('codec server: stopping', { signal });
    void server.close().then(() => process.exit(0));
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
}

if (isMainModule(import.meta.url)) {
  main().catch((err: unknown) => {
    // The one line on stderr that says why it did not start (the messages name variables and key ids only).
    process.stderr.write(`codec server: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
