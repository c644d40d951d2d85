// Scripted request faults: matched in insertion order, each used `times` times, then gone.
import { z } from 'zod';
import type { FaultRule, Operation } from './types.js';

export interface FaultProbe {
  operation: Operation;
  rawBody: string;
  body: unknown;
  taskId: string | undefined;
}

interface Armed {
  rule: FaultRule;
  remaining: number;
}

export class FaultBook {
  private armed: Armed[] = [];

  add(rule: FaultRule): void {
    const times = rule.times ?? 1;
    if (!(times > 0)) throw new Error(`fault rule times must be > 0 (got ${times})`);
    this.armed.push({ rule, remaining: times });
  }

  /** Finds the first matching rule and uses one of its times. */
  take(probe: FaultProbe): FaultRule | undefined {
    const hit = this.armed.find((a) => matches(a.rule, probe));
    if (!hit) return undefined;
    hit.remaining -= 1;
    if (hit.remaining <= 0) this.armed = this.armed.filter((a) => a !== hit);
    return hit.rule;
  }

  clear(): void {
    this.armed = [];
  }
}

function matches(rule: FaultRule, probe: FaultProbe): boolean {
  if (rule.operation !== probe.operation) return false;
  const m = rule.match;
  if (!m) return true;
  if (m.url !== undefined && !probe.rawBody.includes(m.url)) return false;
  if (m.taskId !== undefined && m.taskId !== probe.taskId) return false;
  if (m.model !== undefined) {
    const model =
      typeof probe.body === 'object' && probe.body !== null ? (probe.body as { model?: unknown }).model : undefined;
    if (model !== m.model) return false;
  }
  return true;
}

/** Short label stored in the request log, e.g. 'status:429', 'hang:5000:commit', 'reset'. */
export function faultLabel(rule: FaultRule): string {
  const f = rule.fault;
  const head = f.type === 'status' ? `status:${f.status}` : f.type === 'hang' ? `hang:${f.ms}` : f.type;
  if (f.type === 'streamError') return `streamError:${f.afterEvents ?? 2}`;
  return f.commit ? `${head}:commit` : head;
}

// JSON cannot carry Infinity: the inspection API also accepts "Infinity" or -1 for "every time".
const timesSchema = z
  .union([z.number(), z.literal('Infinity')])
  .transform((t) => (t === 'Infinity' || t === -1 ? Infinity : t))
  .refine((t) => t > 0, 'must be > 0, "Infinity" or -1');

const operationSchema = z.enum([
  'video.create',
  'video.get',
  'video.cancel',
  'review.submitAsync',
  'review.submitSync',
  'review.query',
  'other',
]);

export const faultRuleSchema = z.object({
  operation: operationSchema,
  times: timesSchema.optional(),
  match: z.object({ url: z.string(), taskId: z.string(), model: z.string() }).partial().optional(),
  fault: z.discriminatedUnion('type', [
    z.object({
      type: z.literal('status'),
      status: z.number().int().min(100).max(599),
      retryAfter: z.string().optional(),
      body: z.unknown().optional(),
      /** Answer with the request body quoted (`{ error, request }`) instead of `body`. */
      echo: z.boolean().optional(),
      commit: z.boolean().optional(),
    }),
    z.object({ type: z.literal('hang'), ms: z.number().min(0), commit: z.boolean().optional() }),
    z.object({ type: z.literal('reset'), commit: z.boolean().optional() }),
    z.object({ type: z.literal('malformed'), commit: z.boolean().optional() }),
    z.object({
      type: z.literal('streamError'),
      afterEvents: z.number().int().min(0).optional(),
      status: z.number().int().min(400).max(599).optional(),
    }),
  ]),
});

export const callbackFaultRuleSchema = z.object({
  kind: z.enum(['review', 'video']),
  mode: z.enum(['drop', 'duplicate', 'delay', 'reorder']),
  delayMs: z.number().min(0).optional(),
  times: timesSchema.optional(),
});
