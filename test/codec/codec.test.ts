// The payload codec without a server: round trip, rotation (encrypt with the first key, decrypt with any),
// a key id that is not configured, tampered and truncated ciphertext (a clear error, never garbage), plain
// payloads passing through, and failures whose message and stack are encrypted too.
import { ApplicationFailure, defaultPayloadConverter, type Payload } from '@temporalio/common';
import {
  decodeFailure,
  encodeErrorToFailure,
  loadDataConverter,
} from '@temporalio/common/lib/internal-non-workflow/index.js';
import { describe, expect, it } from 'vitest';
import { encryptionDataConverter } from '../../src/codec/data-converter.js';
import {
  ENCRYPTED_ENCODING,
  KEY_ID_METADATA,
  PayloadDecryptionError,
  PayloadEncryptionCodec,
} from '../../src/codec/encryption-codec.js';
import { newPayloadKey, parsePayloadKeys } from '../../src/codec/keys.js';

const A = `a:${newPayloadKey()}`;
const B = `b:${newPayloadKey()}`;
const codec = (text: string) => new PayloadEncryptionCodec(parsePayloadKeys(text));
const secretInput = { prompt: 'A person walks along the beach', url: 'https://cdn.example.com/people/alice.jpg' };
const payload = (value: unknown) => defaultPayloadConverter.toPayload(value)!;
const meta = (p: Payload, key: string) => Buffer.from(p.metadata![key]!).toString();

async function decodeError(c: PayloadEncryptionCodec, p: Payload): Promise<PayloadDecryptionError> {
  const err = await c.decode([p]).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(PayloadDecryptionError);
  return err as PayloadDecryptionError;
}

describe('PayloadEncryptionCodec', () => {
  it('encrypts the whole payload, names the key id, and decrypts it back exactly', async () => {
    const c = codec(A);
    const plain = payload(secretInput);
    const [encrypted] = await c.encode([plain]);
    expect(meta(encrypted!, 'encoding')).toBe(ENCRYPTED_ENCODING);
    expect(meta(encrypted!, KEY_ID_METADATA)).toBe('a');
    expect(Object.keys(encrypted!.metadata!)).toEqual(['encoding', KEY_ID_METADATA]); // json/plain is hidden too
    const bytes = Buffer.from(encrypted!.data!);
    for (const s of [secretInput.prompt, secretInput.url, 'json/plain']) expect(bytes.includes(s)).toBe(false);
    const [decoded] = await c.decode([encrypted!]);
    expect(defaultPayloadConverter.fromPayload(decoded!)).toEqual(secretInput);
    expect(meta(decoded!, 'encoding')).toBe('json/plain');
    // A fresh IV each time: the same value never gives the same bytes.
    const [again] = await c.encode([plain]);
    expect(Buffer.from(again!.data!).equals(bytes)).toBe(false);
    // Empty and binary payloads (undefined, Uint8Array) survive too.
    const odd = [payload(undefined), payload(new Uint8Array([0, 1, 2, 255])), payload('')];
    const back = await c.decode(await c.encode(odd));
    expect(back.map((p) => defaultPayloadConverter.fromPayload(p))).toEqual([
      undefined,
      new Uint8Array([0, 1, 2, 255]),
      '',
    ]);
  });

  it('rotation: [B, A] encrypts with B and still decrypts what A encrypted; A alone cannot read B', async () => {
    const [underA] = await codec(A).encode([payload(secretInput)]);
    const rotated = codec(`${B},${A}`);
    expect(rotated.encryptingKeyId).toBe('b');
    expect(rotated.keyIds).toEqual(['b', 'a']);
    const [underB] = await rotated.encode([payload(secretInput)]);
    expect(meta(underB!, KEY_ID_METADATA)).toBe('b');
    const decoded = await rotated.decode([underA!, underB!]);
    expect(decoded.map((p) => defaultPayloadConverter.fromPayload(p))).toEqual([secretInput, secretInput]);
    const err = await decodeError(codec(A), underB!);
    expect(err.message).toBe("payload encrypted with key id 'b' which is not in PAYLOAD_ENCRYPTION_KEYS (known: a)");
    expect(err.keyId).toBe('b');
    const fromFile = new PayloadEncryptionCodec(
      parsePayloadKeys(`${A}\nc:${newPayloadKey()}`, 'PAYLOAD_ENCRYPTION_KEYS_FILE'),
    );
    expect((await decodeError(fromFile, underB!)).message).toBe(
      "payload encrypted with key id 'b' which is not in PAYLOAD_ENCRYPTION_KEYS_FILE (known: a, c)",
    );
  });

  it('fails with a clear error on tampered, truncated, wrongly keyed or unnamed ciphertext', async () => {
    const c = codec(A);
    const [encrypted] = await c.encode([payload(secretInput)]);
    const data = Buffer.from(encrypted!.data!);
    for (const at of [0, 20, data.length - 1]) {
      const tampered = Buffer.from(data);
      tampered[at]! ^= 0x01;
      const err = await decodeError(c, { ...encrypted, data: tampered });
      expect(err.message).toBe(
        "payload encrypted with key id 'a' failed authentication: it was altered, or PAYLOAD_ENCRYPTION_KEYS holds a different key under that id",
      );
    }
    // Another key under the same id (a key replaced instead of rotated).
    expect((await decodeError(codec(`a:${newPayloadKey()}`), encrypted!)).message).toMatch(
      /key id 'a' failed authentication/,
    );
    expect((await decodeError(c, { ...encrypted, data: data.subarray(0, 20) })).message).toBe(
      "payload encrypted with key id 'a' is truncated",
    );
    const unnamed = { metadata: { encoding: encrypted!.metadata!.encoding! }, data };
    expect((await decodeError(c, unnamed)).message).toBe('encrypted payload has no encryption-key-id in its metadata');
  });

  it('lets payloads that were never encrypted through (runs started before encryption was turned on)', async () => {
    const plain = payload(secretInput);
    expect(await codec(A).decode([plain])).toEqual([plain]);
  });

  it('encrypts failure messages and stack traces (encodeCommonAttributes) and reads them back', async () => {
    const converter = loadDataConverter(encryptionDataConverter(parsePayloadKeys(A)));
    const error = ApplicationFailure.create({
      message: `review rejected ${secretInput.url}`,
      type: 'ReviewRejected',
      details: [secretInput],
    });
    const failure = await encodeErrorToFailure(converter, error);
    expect(failure.message).toBe('Encoded failure');
    expect(failure.stackTrace).toBe('');
    const wire = JSON.stringify(failure, (_k, v: unknown) => (v instanceof Uint8Array ? Buffer.from(v).toString() : v));
    expect(wire).not.toContain(secretInput.url);
    expect(wire).not.toContain(secretInput.prompt);
    const back = converter.failureConverter.failureToError(
      await decodeFailure(converter.payloadCodecs, failure),
      converter.payloadConverter,
    );
    expect(back).toBeInstanceOf(ApplicationFailure);
    expect((back as ApplicationFailure).message).toBe(`review rejected ${secretInput.url}`);
    expect((back as ApplicationFailure).type).toBe('ReviewRejected');
    expect((back as ApplicationFailure).details).toEqual([secretInput]);
  });
});
