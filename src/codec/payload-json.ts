// The Web UI's remote codec body: `{ "payloads": [{ "metadata": { "encoding": "<base64>" }, "data": "<base64>" }] }`,
// the protobuf JSON form of Temporal Payloads (bytes as base64), to and from the SDK's Payload objects.
import type { Payload } from '@temporalio/common';
import { z } from 'zod';

const base64 = z.string().regex(/^[A-Za-z0-9+/_-]*={0,2}$/, 'must be base64');

export const payloadsBodySchema = z.object({
  payloads: z.array(
    z.object({
      metadata: z.record(z.string(), base64).nullish(),
      data: base64.nullish(),
    }),
  ),
});

export type PayloadsBody = z.infer<typeof payloadsBodySchema>;
export type JsonPayload = PayloadsBody['payloads'][number];

export function fromJson({ metadata, data }: JsonPayload): Payload {
  return {
    metadata: Object.fromEntries(Object.entries(metadata ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64')])),
    data: Buffer.from(data ?? '', 'base64'),
  };
}

export function toJson({ metadata, data }: Payload): JsonPayload {
  return {
    metadata: Object.fromEntries(
      Object.entries(metadata ?? {}).map(([k, v]) => [k, Buffer.from(v ?? new Uint8Array()).toString('base64')]),
    ),
    data: Buffer.from(data ?? new Uint8Array()).toString('base64'),
  };
}
