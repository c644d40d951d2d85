// The payload codec: AES-256-GCM over the whole Payload (its metadata and data, as protobuf bytes), with the
// key id in the new payload's metadata. Same wire format as Temporal's encryption samples in the other SDKs:
// metadata `encoding: binary/encrypted` and `encryption-key-id: <id>`, data = 12-byte IV, ciphertext,
// 16-byte tag. Payloads that are not encrypted pass through decode, so runs started before encryption was
// turned on still read. A payload that cannot be decrypted fails with an error naming its key id: never garbage.
import { createCipheriv, createDecipheriv, randomBytes, type KeyObject } from 'node:crypto';
import type { Payload, PayloadCodec } from '@temporalio/common';
import proto from '@temporalio/proto';
import type { PayloadKey, PayloadKeys } from './keys.js';

export const ENCRYPTED_ENCODING = 'binary/encrypted';
export const KEY_ID_METADATA = 'encryption-key-id';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const ProtoPayload = proto.temporal.api.common.v1.Payload;

export class PayloadDecryptionError extends Error {
  override name = 'PayloadDecryptionError';
  constructor(
    message: string,
    /** The key id the payload names, when it names one. */
    readonly keyId: string | undefined,
  ) {
    super(message);
  }
}

const text = (bytes: Uint8Array | null | undefined) => (bytes ? Buffer.from(bytes).toString('utf8') : undefined);

/** The key id of an encrypted payload, or undefined for a payload this codec did not encrypt. */
export function encryptedWith(payload: Payload): { keyId: string | undefined } | undefined {
  if (text(payload.metadata?.encoding) !== ENCRYPTED_ENCODING) return undefined;
  return { keyId: text(payload.metadata?.[KEY_ID_METADATA]) };
}

export class PayloadEncryptionCodec implements PayloadCodec {
  readonly #byId: ReadonlyMap<string, KeyObject>;
  readonly #current: PayloadKey;
  readonly #source: string;

  constructor(keys: PayloadKeys) {
    const [current] = keys.keys;
    if (!current) throw new Error(`${keys.source} holds no key`);
    this.#current = current;
    this.#byId = new Map(keys.keys.map((k) => [k.id, k.key]));
    this.#source = keys.source;
  }

  /** The id new payloads are encrypted with. */
  get encryptingKeyId(): string {
    return this.#current.id;
  }

  /** Every id this codec decrypts, in the configured order. */
  get keyIds(): string[] {
    return [...this.#byId.keys()];
  }

  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((p) => this.encrypt(p));
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((p) => this.decrypt(p));
  }

  encrypt(payload: Payload): Payload {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#current.key, iv, { authTagLength: TAG_BYTES });
    const plain = ProtoPayload.encode(payload).finish();
    const data = Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
    return {
      metadata: {
        encoding: Buffer.from(ENCRYPTED_ENCODING),
        [KEY_ID_METADATA]: Buffer.from(this.#current.id),
      },
      data,
    };
  }

  decrypt(payload: Payload): Payload {
    const encrypted = encryptedWith(payload);
    if (!encrypted) return payload;
    const { keyId } = encrypted;
    if (keyId === undefined)
      throw new PayloadDecryptionError(`encrypted payload has no ${KEY_ID_METADATA} in its metadata`, undefined);
    const key = this.#byId.get(keyId);
    if (!key)
      throw new PayloadDecryptionError(
        `payload encrypted with key id '${keyId}' which is not in ${this.#source} (known: ${this.keyIds.join(', ')})`,
        keyId,
      );
    const data = payload.data ?? new Uint8Array();
    if (data.length < IV_BYTES + TAG_BYTES)
      throw new PayloadDecryptionError(`payload encrypted with key id '${keyId}' is truncated`, keyId);
    let plain: Buffer;
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, data.subarray(0, IV_BYTES), { authTagLength: TAG_BYTES });
      decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
      plain = Buffer.concat([decipher.update(data.subarray(IV_BYTES, data.length - TAG_BYTES)), decipher.final()]);
    } catch {
      // GCM's tag check failed: altered bytes, or another key stored under the same id.
      throw new PayloadDecryptionError(
        `payload encrypted with key id '${keyId}' failed authentication: it was altered, or ${this.#source} holds a different key under that id`,
        keyId,
      );
    }
    const decoded = ProtoPayload.decode(plain);
    return { metadata: decoded.metadata, data: decoded.data };
  }
}
