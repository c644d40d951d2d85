// Activities of the gateway entry points: one synchronous call, and the create / query pair of the
// asynchronous ones (used by GenerateAndPoll). Same rules as the native task API's activities: errors
// become ApplicationFailures through toApplicationFailure; create never resubmits on its own (an id is
// kept in the heartbeat details, an outcome that may have created a task is CreateAmbiguous); a query is
// one request per attempt, and the retry policy carries the polling with the delay each attempt sets.
import { Context } from '@temporalio/activity';
import { ApplicationFailure, ApplicationFailureCategory } from '@temporalio/common';
import { FailureType, InternalFailureType } from '../failure-types.js';
import { malformedResponseError } from '../services/classify.js';
import { ServiceError } from '../services/errors.js';
import type { VideoClient } from '../services/video/client.js';
import type { JsonObject } from '../services/video/gateway.js';
import { GATEWAY_ENDPOINTS, gatewayOperation, type GatewayEndpointName, type GatewayParam } from '../services/video/gateway-endpoints.js';
import { queryEndpointOf, readGatewayTask, TASK_ADAPTERS, type GatewayTaskEntryPoint, type GatewayTaskView } from '../services/video/gateway-adapters.js';
import { evidenceOf, redactCallbackUrls, toApplicationFailure } from './failures.js';
import { QueryPacer } from './query-pacing.js';

/** Backoff of query network failures (spec: 1 s, 2 s, 4 s, then 4 s), as for the native task queries. */
const QUERY_FAILURE_BACKOFF_MS = [1_000, 2_000, 4_000] as const;

export interface GatewayActivityDependencies {
  video: VideoClient;
}

/** A synchronous call. JSON bodies only: a FormData cannot travel through workflow history. */
export interface GatewayCallInput {
  endpoint: GatewayEndpointName;
  params?: Partial<Record<GatewayParam, string>>;
  body?: JsonObject;
  checkWellKnown?: boolean;
}

export interface GatewayCallResult {
  endpoint: GatewayEndpointName;
  status: number;
  /** The answer, whole (callback addresses redacted). */
  body: unknown;
}

export interface GatewayCreateInput {
  entryPoint: GatewayTaskEntryPoint;
  body: JsonObject;
  /** The query kind the workflow will poll with (checked before anything is created). */
  queryKind?: string;
  checkWellKnown?: boolean;
}

export interface GatewayCreateResult {
  taskId: string;
  /** The state the create answer carried, if any. */
  state: string | undefined;
  reading: GatewayTaskView['reading'];
  raw: unknown;
}

export interface GatewayQueryInput {
  entryPoint: GatewayTaskEntryPoint;
  queryKind?: string;
  taskId: string;
  /** Queries of this task are never closer than this (a Retry-After never shortens it). */
  minIntervalMs: number;
  /** Delay before the next poll when the state is not final (default: minIntervalMs). */
  cadenceMs?: number;
  /** true: keep polling (through activity retries) until a final state; false: one query. */
  untilFinal: boolean;
  /** While polling, also return as soon as the state differs from this one (so progress shows it). */
  returnOnChangeFrom?: string | null;
}

export type GatewayTaskSummary = GatewayTaskView & { taskId: string; raw: unknown; queries: number };

interface CreateProgress {
  taskId?: string;
  notCreated?: boolean;
}

interface PollProgress {
  networkFailures: number;
}

type Phase = Parameters<typeof toApplicationFailure>[1];

/** A query's final failure is GenerationFailed; a create's or a sync call's is VideoRequestRejected. */
function phaseOf(endpoint: GatewayEndpointName): Phase {
  return Object.hasOwn(GATEWAY_ENDPOINTS, endpoint) && GATEWAY_ENDPOINTS[endpoint].kind === 'query' ? 'video.query' : 'video.create';
}

/** The query endpoint to poll, or an InvalidInput failure saying why there is none. */
function queryEndpointFor(video: VideoClient, entryPoint: GatewayTaskEntryPoint, queryKind: string | undefined): GatewayEndpointName {
  const name = queryEndpointOf(entryPoint, queryKind);
  if (name === undefined || video.gatewayPath(name) === undefined) {
    throw ApplicationFailure.create({
      type: FailureType.InvalidInput,
      message:
        name === undefined
          ? `${entryPoint} has no query kind ${String(queryKind)} (known: ${Object.keys(TASK_ADAPTERS[entryPoint].queries).filter((k) => k !== 'default').join(', ') || 'none'})`
          : `${entryPoint} tasks cannot be polled with this client: its query path is not configured (create only)`,
      nonRetryable: true,
    });
  }
  return name;
}

export function createGatewayActivities(deps: GatewayActivityDependencies) {
  const pacer = new QueryPacer();

  return {
    /** One synchronous call of any entry point; the answer is returned whole. */
    async rtgCallGateway(input: GatewayCallInput): Promise<GatewayCallResult> {
      try {
        const res = await deps.video.gateway(input.endpoint, {
          ...(input.params ? { params: input.params } : {}),
          ...(input.body !== undefined ? { body: input.body } : {}),
          ...(input.checkWellKnown ? { checkWellKnown: true } : {}),
        });
        return { endpoint: res.endpoint, status: res.status, body: redactCallbackUrls(res.body) };
      } catch (err) {
        throw toApplicationFailure(err, phaseOf(input.endpoint));
      }
    },

    /**
     * Creates the task of an asynchronous entry point at most once per activity: the id goes into the
     * heartbeat details the moment it is read, and a retried attempt returns it. A 2xx without a readable
     * id is as ambiguous as a 500: a task may exist, so it is CreateAmbiguous, with the answer as evidence.
     */
    async rtgCreateGatewayTask(input: GatewayCreateInput): Promise<GatewayCreateResult> {
      const ctx = Context.current();
      const previous = ctx.info.heartbeatDetails as (CreateProgress & { state?: string; raw?: unknown }) | undefined;
      if (previous?.taskId) {
        return { taskId: previous.taskId, state: previous.state, reading: readGatewayTask(input.entryPoint, previous.raw).reading, raw: previous.raw };
      }
      if (ctx.info.attempt > 1 && !previous?.notCreated) {
        throw ApplicationFailure.create({
          type: InternalFailureType.CreateAmbiguous,
          message: 'a previous create attempt ended without an answer (worker lost or timed out); a task may exist',
          nonRetryable: true,
        });
      }
      queryEndpointFor(deps.video, input.entryPoint, input.queryKind);
      const endpoint = TASK_ADAPTERS[input.entryPoint].create;
      try {
        const res = await deps.video.gateway(endpoint, { body: input.body, ...(input.checkWellKnown ? { checkWellKnown: true } : {}) });
        const raw = redactCallbackUrls(res.body);
        const view = readGatewayTask(input.entryPoint, res.body);
        if (view.taskId === undefined) {
          throw malformedResponseError({ service: 'video', operation: gatewayOperation(endpoint) }, res.status, raw, 'no task id in the body');
        }
        ctx.heartbeat({ taskId: view.taskId, state: view.state, raw } satisfies CreateProgress & { state?: string; raw?: unknown });
        return { taskId: view.taskId, state: view.state, reading: view.reading, raw };
      } catch (err) {
        if (err instanceof ServiceError && err.ambiguous) {
          throw ApplicationFailure.create({
            type: InternalFailureType.CreateAmbiguous,
            message: `${err.message}; not resubmitted blindly`,
            nonRetryable: true,
            details: [evidenceOf(err)],
          });
        }
        if (err instanceof ServiceError && err.retryable) ctx.heartbeat({ notCreated: true } satisfies CreateProgress);
        throw toApplicationFailure(err, 'video.create');
      }
    },

    /**
     * One query per attempt. While polling, a non-final state fails the attempt (benign) with the delay
     * before the next one, unless it differs from `returnOnChangeFrom`: then the state is returned so the
     * workflow can show it. Retry-After is obeyed and never shortens the minimum interval.
     */
    async rtgQueryGatewayTask(input: GatewayQueryInput): Promise<GatewayTaskSummary> {
      const ctx = Context.current();
      const endpoint = queryEndpointFor(deps.video, input.entryPoint, input.queryKind);
      const param = TASK_ADAPTERS[input.entryPoint].queryParam;
      const key = `gateway:${input.entryPoint}:${input.taskId}`;
      const previous = (ctx.info.heartbeatDetails as PollProgress | undefined) ?? { networkFailures: 0 };
      await pacer.acquire(key, input.minIntervalMs);
      let raw: unknown;
      try {
        raw = (await deps.video.gateway(endpoint, { params: { [param]: input.taskId } })).body;
      } catch (err) {
        if (err instanceof ServiceError && err.retryable) {
          const failures = err.retryAfterMs === undefined ? previous.networkFailures + 1 : previous.networkFailures;
          const backoff = QUERY_FAILURE_BACKOFF_MS[Math.min(failures, QUERY_FAILURE_BACKOFF_MS.length) - 1] ?? 0;
          const failure = toApplicationFailure(err, 'video.query', input.minIntervalMs, backoff);
          if (err.retryAfterMs !== undefined) pacer.defer(key, Math.max(err.retryAfterMs, input.minIntervalMs));
          ctx.heartbeat({ networkFailures: failures } satisfies PollProgress);
          throw failure;
        }
        throw toApplicationFailure(err, 'video.query');
      }
      if (previous.networkFailures > 0) ctx.heartbeat({ networkFailures: 0 } satisfies PollProgress);
      const view = readGatewayTask(input.entryPoint, raw);
      const changed = input.returnOnChangeFrom !== undefined && (view.state ?? null) !== input.returnOnChangeFrom;
      if (input.untilFinal && !view.final && !changed) {
        throw ApplicationFailure.create({
          type: InternalFailureType.NotFinalYet,
          message: `${input.entryPoint} task ${input.taskId} is not final yet (${view.state ?? 'no state'})`,
          nonRetryable: false,
          category: ApplicationFailureCategory.BENIGN,
          nextRetryDelay: Math.max(input.cadenceMs ?? input.minIntervalMs, input.minIntervalMs),
        });
      }
      return { ...view, taskId: input.taskId, raw: redactCallbackUrls(raw), queries: ctx.info.attempt };
    },
  };
}

export type GatewayActivities = ReturnType<typeof createGatewayActivities>;
