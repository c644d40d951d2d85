// The callback receiver as its own process (`src/callbacks/main.ts`) says at start whether the signals it
// sends are encrypted: without PAYLOAD_ENCRYPTION_KEYS it warns, naming the variable, since a receiver
// without the keys beside workers that encrypt would write each callback's task record in clear.
import { randomBytes } from 'node:crypto';
import { expect, inject, it } from 'vitest';
import { newPayloadKey } from '../../src/codec/keys.js';
import { freePort } from '../../src/dev/temporal-dev-server.js';
import { jsonLines, startReceiverProcess } from '../observability/processes.js';
import { temporalAddress } from '../support/temporal.js';

async function receiverLog(keys: string): Promise<Array<Record<string, unknown>>> {
  const receiver = await startReceiverProcess({
    TEMPORAL_ADDRESS: temporalAddress(),
    TEMPORAL_NAMESPACE: inject('temporalNamespace'),
    TEMPORAL_PROFILE: '',
    CALLBACK_HOST: '127.0.0.1',
    CALLBACK_PORT: String(await freePort()),
    CALLBACK_SECRET: randomBytes(16).toString('hex'),
    PAYLOAD_ENCRYPTION_KEYS: keys,
    PAYLOAD_ENCRYPTION_KEYS_FILE: '',
    LOG_FORMAT: 'json',
  });
  receiver.kill('SIGTERM');
  await receiver.exited;
  return jsonLines(receiver.output());
}

const warnings = (lines: Array<Record<string, unknown>>) =>
  lines.filter((l) => String(l.level).toUpperCase().startsWith('WARN')).map((l) => String(l.msg));

it('without the payload keys, warns at start that its signals go in clear, naming PAYLOAD_ENCRYPTION_KEYS', async () => {
  const lines = await receiverLog('');
  expect(warnings(lines)).toEqual([expect.stringMatching(/signals .*in clear.*PAYLOAD_ENCRYPTION_KEYS/)]);
});

it('with the keys, starts without that warning and says which key encrypts', async () => {
  const lines = await receiverLog(`r-1:${newPayloadKey()}`);
  expect(warnings(lines)).toEqual([]);
  expect(lines.find((l) => String(l.msg).startsWith('callback receiver listening'))).toMatchObject({
    encryption: expect.stringContaining("encrypting with key 'r-1'") as string,
  });
});
