// The DataConverter of everything that talks to Temporal when payload encryption is on: the worker, the
// client helpers, the CLI, the callback receiver, the demo and the plugin. Off (undefined) when neither
// PAYLOAD_ENCRYPTION_KEYS nor PAYLOAD_ENCRYPTION_KEYS_FILE is set: then the SDK's defaults apply untouched.
import { fileURLToPath } from 'node:url';
import type { DataConverter } from '@temporalio/common';
import { PayloadEncryptionCodec } from './encryption-codec.js';
import { loadPayloadKeys, type PayloadKeys } from './keys.js';

/**
 * A failure converter with `encodeCommonAttributes: true`, so that failure messages and stack traces are
 * encrypted too. A worker must also have it in its workflow bundle: `bundleWorkflowCode({ failureConverterPath })`
 * (the plugin's configureBundler and our worker's prebuilt `.encrypted` bundles do it).
 */
export const failureConverterPath = fileURLToPath(new URL('./failure-converter.cjs', import.meta.url));

export function encryptionDataConverter(keys: PayloadKeys): DataConverter {
  return { payloadCodecs: [new PayloadEncryptionCodec(keys)], failureConverterPath };
}

/** The encrypting DataConverter the environment asks for, or undefined when encryption is off. */
export function dataConverterFromEnv(env: Record<string, string | undefined> = process.env): DataConverter | undefined {
  const keys = loadPayloadKeys(env);
  return keys ? encryptionDataConverter(keys) : undefined;
}

/** For startup lines: which key encrypts and which decrypt (ids only). */
export function describeEncryption(dataConverter: DataConverter | undefined): string {
  const codec = dataConverter?.payloadCodecs?.find((c) => c instanceof PayloadEncryptionCodec);
  return codec ? `on (encrypting with key '${codec.encryptingKeyId}'; decrypting ${codec.keyIds.join(', ')})` : 'off';
}
