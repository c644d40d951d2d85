// The JSON Schemas of the public contract, generated from its zod schemas (never written twice): the job
// input (the input side, `io: 'input'`: what a caller sends), the result, the `progress` answer, the
// details of each public failure type, and the webhook body with its delivery's `progress`. `npm run
// schemas` writes them to `schemas/` (shipped in the package); test/unit/json-schemas.test.ts regenerates
// them and fails if the committed files differ.
// Pure: no I/O here.
import { z } from 'zod';
import { FailureType } from '../model/failure-types.js';
import { failureDetailsSchemas, progressSchema, reviewThenGenerateResultSchema } from '../model/job-schemas.js';
import { notificationPayloadSchema, notificationProgressSchema } from '../model/notify.js';
import { reviewThenGenerateInputSchema } from './input-schema.js';

type JsonObject = Record<string, unknown>;

/**
 * A key whose schema accepts `undefined` (`orUndefined`, `z.unknown()`) is absent from the JSON that
 * JSON.stringify makes of it: not required in JSON, and its `undefined` branch says nothing in JSON.
 */
function jsonSideOfUndefined(ctx: { zodSchema: z.core.$ZodType; jsonSchema: z.core.JSONSchema.BaseSchema }): void {
  const def = ctx.zodSchema._zod.def;
  if (def.type === 'object' && Array.isArray(ctx.jsonSchema.required)) {
    const shape = (def as z.core.$ZodObjectDef).shape;
    const required = ctx.jsonSchema.required.filter((k) => !acceptsUndefined(shape[k]));
    if (required.length > 0) ctx.jsonSchema.required = required;
    else delete ctx.jsonSchema.required;
  }
  if (def.type === 'union' && Array.isArray(ctx.jsonSchema.anyOf)) {
    const options = (def as z.core.$ZodUnionDef).options;
    const kept = ctx.jsonSchema.anyOf.filter((_, i) => options[i]?._zod.def.type !== 'undefined');
    if (kept.length === 1) {
      delete ctx.jsonSchema.anyOf;
      Object.assign(ctx.jsonSchema, kept[0]);
    } else ctx.jsonSchema.anyOf = kept;
  }
}

function acceptsUndefined(schema: z.core.$ZodType | undefined): boolean {
  return schema !== undefined && z.safeParse(schema, undefined).success;
}

function generate(schema: z.ZodType, title: string, io: 'input' | 'output'): JsonObject {
  const json = z.toJSONSchema(schema, {
    io,
    target: 'draft-2020-12',
    // Only `undefined` is unrepresentable in these schemas, and jsonSideOfUndefined drops its branch.
    unrepresentable: 'any',
    override: jsonSideOfUndefined,
  }) as JsonObject;
  const { $schema, ...rest } = json;
  return { $schema, title, ...rest };
}

/** Every JSON Schema of the contract, by its file name under `schemas/`. */
export function contractJsonSchemas(): Record<string, JsonObject> {
  const out: Record<string, JsonObject> = {
    'job-input.schema.json': generate(reviewThenGenerateInputSchema(), 'ReviewThenGenerate input', 'input'),
    'job-result.schema.json': generate(reviewThenGenerateResultSchema(), 'ReviewThenGenerate result', 'output'),
    'job-progress.schema.json': generate(progressSchema(), 'ReviewThenGenerate progress query answer', 'output'),
    // The webhook body (docs/webhooks.md), and the progress of the workflow that delivers one.
    'notification.schema.json': generate(
      notificationPayloadSchema(),
      'ReviewThenGenerate notification (webhook body)',
      'output',
    ),
    'notification-progress.schema.json': generate(
      notificationProgressSchema(),
      'ReviewThenGenerateNotification progress query answer',
      'output',
    ),
  };
  const details = failureDetailsSchemas();
  for (const type of Object.values(FailureType)) {
    const name = `failure-details/${type}.schema.json`;
    out[name] = generate(details[type], `Details of a ${type} failure (details[0])`, 'output');
  }
  return out;
}

/** A schema file's text as committed: two-space JSON and a final newline. */
export function schemaFileText(schema: JsonObject): string {
  return `${JSON.stringify(schema, null, 2)}\n`;
}
