// The codec server over real HTTP: the Web UI's remote codec contract (/encode, /decode with protobuf JSON
// payloads), CORS for the configured UI origin only (403 for any other), the bearer token, clear 4xx for
// bad bodies and unknown keys; the real Temporal CLI decoding an encrypted history through it; and the
// `npm run codec-server` entry configured from the environment.
import { execFile, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { locateTemporalCli } from '../../scripts/temporal-cli.mjs';
import { encryptionDataConverter } from '../../src/codec/data-converter.js';
import { PayloadEncryptionCodec } from '../../src/codec/encryption-codec.js';
import { newPayloadKey, parsePayloadKeys } from '../../src/codec/keys.js';
import { toJson } from '../../src/codec/payload-json.js';
import { startCodecServer, type CodecOutcome, type CodecServer } from '../../src/codec/server.js';
import { temporalAddress } from '../support/temporal.js';

const run = promisify(execFile);
const UI = 'http://ui.test:8080';
const TOKEN = `codec-token-${randomUUID()}`;
const keys = `a:${newPayloadKey()}`;
const codec = new PayloadEncryptionCodec(parsePayloadKeys(keys));
const secret = { prompt: 'A person walks along the beach', url: 'https://cdn.example.com/people/alice.jpg' };

let server: CodecServer;
const outcomes: CodecOutcome[] = [];
beforeAll(async () => {
  server = await startCodecServer({ codec, corsOrigins: [UI], authToken: TOKEN, onOutcome: (o) => outcomes.push(o) });
});
afterAll(() => server.close());

/** JSON with every base64 `data` field decoded, as a reader of the history would see it. */
const readable = (json: string) =>
  json.replace(/"data":\s*"([A-Za-z0-9+/=]*)"/g, (_m, b64: string) => Buffer.from(b64, 'base64').toString('utf8'));

const encryptedBody = async () => ({
  payloads: (await codec.encode([defaultPayloadConverter.toPayload(secret)!])).map(toJson),
});

function call(path: string, init: { method?: string; origin?: string; token?: string | null; body?: unknown } = {}) {
  const headers: Record<string, string> = { 'content-type': 'application/json', 'x-namespace': 'default' };
  if (init.origin) headers.origin = init.origin;
  if (init.token !== null) headers.authorization = `Bearer ${init.token ?? TOKEN}`;
  return fetch(`${server.url}${path}`, {
    method: init.method ?? 'POST',
    headers,
    ...(init.body !== undefined ? { body: typeof init.body === 'string' ? init.body : JSON.stringify(init.body) } : {}),
  });
}

describe('codec server', () => {
  it('answers the preflight of the UI origin with the headers the UI sends, and refuses other origins', async () => {
    const preflight = await fetch(`${server.url}/decode`, {
      method: 'OPTIONS',
      headers: {
        origin: UI,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type,x-namespace,authorization',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(UI);
    expect(preflight.headers.get('access-control-allow-methods')).toBe('POST, OPTIONS');
    expect(preflight.headers.get('access-control-allow-headers')).toBe('content-type, x-namespace, authorization');
    expect(preflight.headers.get('access-control-allow-credentials')).toBe('true');
    const other = await fetch(`${server.url}/decode`, { method: 'OPTIONS', headers: { origin: 'http://evil.test' } });
    expect(other.status).toBe(403);
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('decodes for the allowed origin with the token, and refuses another origin or a bad token', async () => {
    const body = await encryptedBody();
    const ok = await call('/decode', { origin: UI, body });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('access-control-allow-origin')).toBe(UI);
    const decoded = (await ok.json()) as { payloads: { metadata: Record<string, string>; data: string }[] };
    expect(Buffer.from(decoded.payloads[0]!.metadata.encoding!, 'base64').toString()).toBe('json/plain');
    expect(JSON.parse(Buffer.from(decoded.payloads[0]!.data, 'base64').toString())).toEqual(secret);

    const foreign = await call('/decode', { origin: 'http://evil.test', body });
    expect(foreign.status).toBe(403);
    expect(await foreign.text()).not.toContain(secret.prompt);
    for (const token of ['wrong-token-0123456789', null]) {
      const refused = await call('/decode', { origin: UI, token, body });
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toBe('Bearer');
      expect(await refused.text()).not.toContain(secret.prompt);
    }
    // No Origin: not a browser (the Temporal CLI, curl); only the token applies.
    expect((await call('/decode', { body })).status).toBe(200);
    // Behind a proxy path prefix, as an endpoint such as https://host/codec would be called.
    expect((await call('/codec/decode', { body })).status).toBe(200);
  });

  it('encodes with the current key; the result decodes back', async () => {
    const plain = { payloads: [toJson(defaultPayloadConverter.toPayload(secret)!)] };
    const res = await call('/encode', { origin: UI, body: plain });
    expect(res.status).toBe(200);
    const encoded = (await res.json()) as { payloads: { metadata: Record<string, string>; data: string }[] };
    const meta = encoded.payloads[0]!.metadata;
    expect(Buffer.from(meta['encryption-key-id']!, 'base64').toString()).toBe('a');
    expect(Buffer.from(encoded.payloads[0]!.data, 'base64').includes(secret.prompt)).toBe(false);
    const back = await call('/decode', { origin: UI, body: encoded });
    const payload = ((await back.json()) as typeof encoded).payloads[0]!;
    expect(JSON.parse(Buffer.from(payload.data, 'base64').toString())).toEqual(secret);
  });

  it('answers bad requests with a clear 4xx: unknown key id, bad bodies, wrong method or path', async () => {
    const other = new PayloadEncryptionCodec(parsePayloadKeys(`retired:${newPayloadKey()}`));
    const foreignKey = { payloads: (await other.encode([defaultPayloadConverter.toPayload(secret)!])).map(toJson) };
    const unknown = await call('/decode', { origin: UI, body: foreignKey });
    expect(unknown.status).toBe(400);
    expect(await unknown.json()).toEqual({
      error: "payload encrypted with key id 'retired' which is not in PAYLOAD_ENCRYPTION_KEYS (known: a)",
    });
    expect((await call('/decode', { body: '{not json' })).status).toBe(400);
    expect((await call('/decode', { body: { payloads: [{ data: '***' }] } })).status).toBe(400);
    expect((await call('/decode', { body: { nothing: [] } })).status).toBe(400);
    expect((await call('/decode', { method: 'GET' })).status).toBe(405);
    expect((await call('/elsewhere', { body: {} })).status).toBe(404);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    // Logged outcomes carry no payload and no token.
    const logged = JSON.stringify(outcomes);
    for (const s of [secret.prompt, secret.url, TOKEN]) expect(logged).not.toContain(s);
    expect(outcomes.some((o) => o.status === 403 && o.reason === 'origin not allowed')).toBe(true);
  });

  it('without keys, passes plain payloads through and refuses encrypted ones naming the key id', async () => {
    const keyless = await startCodecServer({ codec: undefined, corsOrigins: [UI] });
    try {
      const plain = { payloads: [toJson(defaultPayloadConverter.toPayload('hello')!)] };
      const res = await fetch(`${keyless.url}/decode`, { method: 'POST', body: JSON.stringify(plain) });
      expect(await res.json()).toEqual(plain);
      const refused = await fetch(`${keyless.url}/decode`, {
        method: 'POST',
        body: JSON.stringify(await encryptedBody()),
      });
      expect(refused.status).toBe(400);
      expect(((await refused.json()) as { error: string }).error).toBe(
        "payload encrypted with key id 'a' but this codec server has no keys (PAYLOAD_ENCRYPTION_KEYS unset)",
      );
    } finally {
      await keyless.close();
    }
  });

  it('lets the real Temporal CLI read an encrypted history (--codec-endpoint, --codec-auth)', async () => {
    const cli = locateTemporalCli().path!;
    const connection = await Connection.connect({ address: temporalAddress() });
    const namespace = inject('temporalNamespace');
    const client = new Client({
      connection,
      namespace,
      dataConverter: encryptionDataConverter(parsePayloadKeys(keys)),
    });
    const workflowId = `codec-cli-${randomUUID()}`;
    // No worker polls this queue: the started event alone holds the encrypted input.
    const handle = await client.workflow.start('ReviewThenGenerate', {
      taskQueue: `codec-cli-${randomUUID()}`,
      workflowId,
      args: [secret],
    });
    try {
      const show = [
        'workflow',
        'show',
        '--address',
        temporalAddress(),
        '--namespace',
        namespace,
        '-w',
        workflowId,
        '-o',
        'json',
      ];
      const raw = readable((await run(cli, show)).stdout);
      expect(raw).toContain('YmluYXJ5L2VuY3J5cHRlZA=='); // "binary/encrypted"
      expect(raw).not.toContain(secret.url);
      const decoded = readable(
        (await run(cli, [...show, '--codec-endpoint', server.url, '--codec-auth', `Bearer ${TOKEN}`])).stdout,
      );
      expect(decoded).toContain(secret.url);
      expect(decoded).toContain(secret.prompt);
      // A wrong token is refused with 401 (above); the CLI then retries for seconds, so it is not run here.
    } finally {
      await handle.terminate('test done');
      await connection.close();
    }
  });

  it('runs as `npm run codec-server` from the environment; a bad setting stops it with one line', async () => {
    const entry = fileURLToPath(new URL('../../src/codec/main.ts', import.meta.url));
    const start = (env: Record<string, string>) =>
      spawn(process.execPath, ['--import', 'tsx', entry], {
        env: {
          ...process.env,
          LOG_FORMAT: 'json',
          PAYLOAD_ENCRYPTION_KEYS: '',
          PAYLOAD_ENCRYPTION_KEYS_FILE: '',
          ...env,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    const child = start({ PAYLOAD_ENCRYPTION_KEYS: keys, CODEC_PORT: '0', CODEC_CORS_ORIGINS: UI });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          const m = /"url":"(http:\/\/[^"]+)"/.exec(out);
          if (m) resolve(m[1]!);
        });
        child.once('exit', (code) => reject(new Error(`codec server exited (${code}): ${out}`)));
      });
      const res = await fetch(`${url}/decode`, {
        method: 'POST',
        headers: { origin: UI },
        body: JSON.stringify(await encryptedBody()),
      });
      expect(res.status).toBe(200);
      expect(
        (await fetch(`${url}/decode`, { method: 'POST', headers: { origin: 'http://evil.test' }, body: '{}' })).status,
      ).toBe(403);
    } finally {
      child.kill('SIGTERM');
    }
    const short = Buffer.alloc(16, 1).toString('base64');
    const bad = start({ PAYLOAD_ENCRYPTION_KEYS: `a:${short}`, CODEC_PORT: '0' });
    let stderr = '';
    bad.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    expect(await new Promise((resolve) => bad.once('exit', resolve))).toBe(1);
    expect(stderr.trim()).toBe(
      "codec server: invalid configuration: PAYLOAD_ENCRYPTION_KEYS key 'a' must be 32 bytes (got 16); make one with: openssl rand -base64 32",
    );
  });
});
