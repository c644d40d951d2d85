// The GenerateAndPoll input and its validation. Pure and deterministic: the workflow runs it first, and a
// caller can run it before starting. Every problem is reported at once, naming the field and the rule.
import { z } from 'zod';
import { lazy } from '../model/lazy.js';
import type { ValidationIssue } from '../model/validation.js';
import {
  GATEWAY_TASK_ENTRY_POINTS,
  TASK_ADAPTERS,
  type GatewayTaskEntryPoint,
} from '../model/video/gateway-adapters.js';
import { validateGatewayBody } from '../model/video/gateway-schemas.js';

export const GENERATE_AND_POLL_DEFAULT_TIMING = {
  /** Delay between two queries of a task that is not final. */
  pollIntervalMs: 10_000,
  /** Queries of one task are never closer than this, whatever a Retry-After or a backoff says. */
  minQueryIntervalMs: 2_000,
  /** From the task's creation to a final state. */
  generationTimeoutMs: 7_200_000,
  /**
   * Accepted for ReviewThenGenerate's sake (there, the wait for a callback naming an ambiguous task); no
   * callback can name a task of these entry points, so GenerateAndPoll waits none before resubmitting.
   */
  createAmbiguityGraceMs: 60_000,
  /** Start-to-close time-out of one attempt of one HTTP-calling activity. */
  callTimeoutMs: 120_000,
} as const;

export type GenerateAndPollTiming = { -readonly [K in keyof typeof GENERATE_AND_POLL_DEFAULT_TIMING]: number };

const ms = (min: number) =>
  z
    .number()
    .int()
    .min(min)
    .max(30 * 24 * 3_600_000);

export const generateAndPollTimingSchema = lazy(() =>
  z
    .object({
      pollIntervalMs: ms(100),
      minQueryIntervalMs: ms(0),
      generationTimeoutMs: ms(1_000),
      createAmbiguityGraceMs: ms(0),
      callTimeoutMs: ms(1_000),
    })
    .partial()
    .strict(),
);

export const generateAndPollInputSchema = lazy(() =>
  z
    .object({
      /** Which asynchronous entry point creates the task. */
      entryPoint: z.enum(GATEWAY_TASK_ENTRY_POINTS),
      /** The create body, sent as given (a JSON object; its shape is not in the spec). */
      body: z.record(z.string(), z.unknown()),
      /** The query path to poll, for entry points with several (vendorA: text2video, image2video, omni-video). */
      queryKind: z.string().min(1).optional(),
      /** Check `body` against the well-known schema of the create path, where one exists (videos). */
      checkWellKnown: z.boolean().optional(),
      /**
       * After a create that may or may not have made a task (500, time-out, reset): false (default) fails
       * with the evidence and never sends a second create; true resubmits, as any create of the package
       * (src/workflows/ambiguity.ts: at most 3 ambiguous answers, not past the generation time-out),
       * accepting that a duplicate task may result.
       */
      resubmitOnAmbiguity: z.boolean().optional(),
      timing: generateAndPollTimingSchema().optional(),
    })
    .strict(),
);

export type GenerateAndPollInput = z.input<ReturnType<typeof generateAndPollInputSchema>>;

export interface GenerateAndPollJob {
  entryPoint: GatewayTaskEntryPoint;
  body: Record<string, unknown>;
  queryKind: string | undefined;
  checkWellKnown: boolean;
  resubmitOnAmbiguity: boolean;
  timing: GenerateAndPollTiming;
}

export type GenerateAndPollValidation =
  { ok: true; job: GenerateAndPollJob } | { ok: false; problems: ValidationIssue[] };

export function validateGenerateAndPollInput(input: unknown): GenerateAndPollValidation {
  const parsed = generateAndPollInputSchema().safeParse(input);
  if (!parsed.success) {
    return {
      ok: false,
      problems: parsed.error.issues.map((i) => ({ field: i.path.map(String).join('.') || '(input)', rule: i.message })),
    };
  }
  const { entryPoint, body, queryKind, checkWellKnown, resubmitOnAmbiguity, timing } = parsed.data;
  const adapter = TASK_ADAPTERS[entryPoint];
  const problems: ValidationIssue[] = [];
  const kinds = Object.keys(adapter.queries).filter((k) => k !== 'default');
  if (queryKind !== undefined && !kinds.includes(queryKind)) {
    problems.push({
      field: 'queryKind',
      rule:
        kinds.length > 0
          ? `must be one of ${kinds.join(', ')} for ${entryPoint}`
          : `must be absent: ${entryPoint} has one query path`,
    });
  }
  const checked = validateGatewayBody(adapter.create, body, checkWellKnown ?? false);
  if (!checked.ok)
    problems.push(
      ...checked.issues.map((i) => ({ field: i.field === '(body)' ? 'body' : `body.${i.field}`, rule: i.rule })),
    );
  if (problems.length > 0) return { ok: false, problems };
  return {
    ok: true,
    job: {
      entryPoint,
      body,
      queryKind,
      checkWellKnown: checkWellKnown ?? false,
      resubmitOnAmbiguity: resubmitOnAmbiguity ?? false,
      timing: { ...GENERATE_AND_POLL_DEFAULT_TIMING, ...timing },
    },
  };
}
