// Activities of the gateway entry points: one synchronous call, and the create / query pair of the
// asynchronous ones (used by GenerateAndPoll). Same rules as the native task API's activities: errors
// become ApplicationFailures through toApplicationFailure; create never resubmits on its own (an id is
// kept in the heartbeat details, an outcome that may have created a task is CreateAmbiguous); a query is
// one request per attempt, and the retry policy carries the polling with the delay each attempt sets.
import { ApplicationFailure } from '@temporalio/common';
import { FailureType } from '../model/failure-types.js';
import { malformedResponseError } from '../services/classify.js';
import type { VideoClient } from '../services/video/client.js';
import type { JsonObject } from '../services/video/gateway.js';
import {
  GATEWAY_ENDPOINTS,
  gatewayOperation,
  type GatewayEndpointName,
  type GatewayParam,
} from '../model/video/gateway-endpoints.js';
import {
  queryEndpointOf,
  readGatewayTask,
  TASK_ADAPTERS,
  type GatewayTaskEntryPoint,
  type GatewayTaskView,
} from '../model/video/gateway-adapters.js';
import { redactCallbackUrls, toApplicationFailure } from './failures.js';
import { createAtMostOnce, pollOnce, type PollInput } from './task-protocol.js';

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

export interface GatewayQueryInput extends PollInput {
  entryPoint: GatewayTaskEntryPoint;
  queryKind?: string;
  /** While polling, also return as soon as the state differs from this one (so progress shows it). */
  returnOnChangeFrom?: string | null;
}

export type GatewayTaskSummary = GatewayTaskView & {
  taskId: string;
  raw: unknown;
  queries: number;
  nextQueryAt: number;
};

type Phase = Parameters<typeof toApplicationFailure>[1];

/** A query's final failure is GenerationFailed; a create's or a sync call's is VideoRequestRejected. */
function phaseOf(endpoint: GatewayEndpointName): Phase {
  return Object.hasOwn(GATEWAY_ENDPOINTS, endpoint) && GATEWAY_ENDPOINTS[endpoint].kind === 'query'
    ? 'video.query'
    : 'video.create';
}

/** The query endpoint to poll, or an InvalidInput failure saying why there is none. */
function queryEndpointFor(
  video: VideoClient,
  entryPoint: GatewayTaskEntryPoint,
  queryKind: string | undefined,
): GatewayEndpointName {
  const name = queryEndpointOf(entryPoint, queryKind);
  if (name === undefined || video.gatewayPath(name) === undefined) {
    throw ApplicationFailure.create({
      type: FailureType.InvalidInput,
      message:
        name === undefined
          ? `${entryPoint} has no query kind ${String(queryKind)} (known: ${
              Object.keys(TASK_ADAPTERS[entryPoint].queries)
                .filter((k) => k !== 'default')
                .join(', ') || 'none'
            })`
          : `${entryPoint} tasks cannot be polled with this client: its query path is not configured (create only)`,
      nonRetryable: true,
    });
  }
  return name;
}

export function createGatewayActivities(deps: GatewayActivityDependencies) {
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
      queryEndpointFor(deps.video, input.entryPoint, input.queryKind);
      const endpoint = TASK_ADAPTERS[input.entryPoint].create;
      const { taskId, record } = await createAtMostOnce(async () => {
        const res = await deps.video.gateway(endpoint, {
          body: input.body,
          ...(input.checkWellKnown ? { checkWellKnown: true } : {}),
        });
        const raw = redactCallbackUrls(res.body);
        const view = readGatewayTask(input.entryPoint, res.body);
        if (view.taskId === undefined) {
          throw malformedResponseError(
            { service: 'video', operation: gatewayOperation(endpoint) },
            res.status,
            raw,
            'no task id in the body',
          );
        }
        return { taskId: view.taskId, record: { state: view.state, raw } };
      });
      return {
        taskId,
        state: record?.state,
        reading: readGatewayTask(input.entryPoint, record?.raw).reading,
        raw: record?.raw,
      };
    },

    /**
     * One query per attempt. While polling, a non-final state fails the attempt (benign) with the delay
     * before the next one, unless it differs from `returnOnChangeFrom`: then the state is returned so the
     * workflow can show it. Retry-After is obeyed and never shortens the minimum interval.
     */
    async rtgQueryGatewayTask(input: GatewayQueryInput): Promise<GatewayTaskSummary> {
      const endpoint = queryEndpointFor(deps.video, input.entryPoint, input.queryKind);
      const param = TASK_ADAPTERS[input.entryPoint].queryParam;
      const changed = (view: GatewayTaskView) =>
        input.returnOnChangeFrom !== undefined && (view.state ?? null) !== input.returnOnChangeFrom;
      const task = await pollOnce(
        `${input.entryPoint} task ${input.taskId}`,
        input,
        'video.query',
        async () => {
          const raw = (await deps.video.gateway(endpoint, { params: { [param]: input.taskId } })).body;
          return { ...readGatewayTask(input.entryPoint, raw), raw };
        },
        (view) => view.final || changed(view),
      );
      return { ...task, taskId: input.taskId, raw: redactCallbackUrls(task.raw) };
    },
  };
}

export type GatewayActivities = ReturnType<typeof createGatewayActivities>;
