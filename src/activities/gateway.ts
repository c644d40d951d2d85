// Activities of the gateway entry points: one synchronous call, and the create / query pair of the
// asynchronous ones (used by GenerateAndPoll). Same rules as the native task API's activities: errors
// become ApplicationFailures through toApplicationFailure; create never resubmits on its own (an id is
// kept in the heartbeat details, an outcome that may have created a task is CreateAmbiguous); a query is
// one request per attempt, and the retry policy carries the polling with the delay each attempt sets.
//
// Every POST that creates a task goes through createAtMostOnce, whichever activity sends it (spec: no
// blind resubmit after a time-out). rtgCallGateway refuses the create endpoints whose task can be polled
// (GenerateAndPoll and rtgCreateGatewayTask are the way to them) and sends the one that cannot (vendor B
// with `vendorBQueryPath: false`) at most once. Its synchronous POSTs (chat, responses, messages,
// generateContent, images) stay retryable after a 500 or a time-out: see rtgCallGateway.
import type { ApplicationFailure } from '@temporalio/common';
import { answeredUnreadable, malformedResponseError } from '../services/classify.js';
import type { VideoClient } from '../services/video/client.js';
import {
  GATEWAY_ENDPOINTS,
  gatewayOperation,
  isGatewayEndpointName,
  type GatewayEndpointName,
} from '../model/video/gateway-endpoints.js';
import {
  GATEWAY_TASK_ENTRY_POINTS,
  queryEndpointOf,
  readGatewayTask,
  TASK_ADAPTERS,
  type GatewayTaskEntryPoint,
  type GatewayTaskView,
} from '../model/video/gateway-adapters.js';
import {
  invalidInput,
  type GatewayActivities,
  type GatewayCallInput,
  type GatewayCallResult,
  type GatewayCreateInput,
  type GatewayCreateResult,
  type GatewayQueryInput,
  type GatewayQuotaCreateInput,
  type GatewayTaskSummary,
} from '../contract/index.js';
import { redactCallbackUrls } from './redact-callback-urls.js';
import { toApplicationFailure } from './service-failures.js';
import { createAtMostOnce, pollOnce } from './task-protocol.js';
import { sendWithinQuota } from './admission.js';
import { videoSlotFor } from './admission-limits.js';
import type { AdmissionSettings } from '../config/admission.js';
import type { VideoStore } from '../store/types.js';
import { keepGatewayVideo } from './gateway-keep.js';

export interface GatewayActivityDependencies {
  video: VideoClient;
  /** VIDEO_STORE: where a result that has no URL (a /v1/videos file) is kept. */
  store?: VideoStore | undefined;
  /** The provider's limits (VIDEO_MAX_TASKS_IN_FLIGHT...), for GenerateAndPoll's creates. */
  admission?: AdmissionSettings | undefined;
}

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
    throw invalidInput(
      name === undefined
        ? `${entryPoint} has no query kind ${String(queryKind)} (known: ${
            Object.keys(TASK_ADAPTERS[entryPoint].queries)
              .filter((k) => k !== 'default')
              .join(', ') || 'none'
          })`
        : `${entryPoint} tasks cannot be polled with this client: its query path is not configured (create only)`,
    );
  }
  return name;
}

/** The task entry point whose create an endpoint is; undefined for the endpoints that create no task. */
function taskCreatedBy(endpoint: GatewayEndpointName): GatewayTaskEntryPoint | undefined {
  return GATEWAY_TASK_ENTRY_POINTS.find((e) => TASK_ADAPTERS[e].create === endpoint);
}

/**
 * The create of an asynchronous entry point, sent at most once per activity (createAtMostOnce): the id
 * goes into the heartbeat details the moment it is read, and a retried attempt returns it. A 2xx without a
 * readable id is as ambiguous as a 500: a task may exist, so it is CreateAmbiguous, with the answer as
 * evidence.
 */
async function createTaskAtMostOnce(
  video: VideoClient,
  entryPoint: GatewayTaskEntryPoint,
  { params, body, checkWellKnown }: Omit<GatewayCallInput, 'endpoint'>,
) {
  const endpoint = TASK_ADAPTERS[entryPoint].create;
  return createAtMostOnce(async () => {
    const res = await video.gateway(endpoint, {
      ...(params ? { params } : {}),
      ...(body !== undefined ? { body } : {}),
      ...(checkWellKnown ? { checkWellKnown: true } : {}),
    });
    const raw = redactCallbackUrls(res.body);
    const view = readGatewayTask(entryPoint, res.body);
    if (view.taskId === undefined) {
      throw malformedResponseError(
        { service: 'video', operation: gatewayOperation(endpoint) },
        res.status,
        raw,
        'no task id in the body',
      );
    }
    return { taskId: view.taskId, record: { status: res.status, state: view.state, raw } };
  });
}

async function createGatewayTask(video: VideoClient, input: GatewayCreateInput): Promise<GatewayCreateResult> {
  const { taskId, record } = await createTaskAtMostOnce(video, input.entryPoint, {
    body: input.body,
    ...(input.checkWellKnown ? { checkWellKnown: true } : {}),
  });
  return {
    taskId,
    state: record?.state,
    reading: readGatewayTask(input.entryPoint, record?.raw).reading,
    raw: record?.raw,
  };
}

function refuseCreate(endpoint: GatewayEndpointName, entryPoint: GatewayTaskEntryPoint): ApplicationFailure {
  const { method, path } = GATEWAY_ENDPOINTS[endpoint];
  return invalidInput(
    `rtgCallGateway does not send ${endpoint} (${method} ${path}): it creates a task, and a retry after a 500 ` +
      `or a time-out could create it twice. Use the workflow GenerateAndPoll ({ entryPoint: '${entryPoint}' }), ` +
      `or the activities rtgCreateGatewayTask ({ entryPoint: '${entryPoint}' }) and rtgQueryGatewayTask: ` +
      'they create at most once',
    { endpoint, entryPoint },
  );
}

export function createGatewayActivities(deps: GatewayActivityDependencies): GatewayActivities {
  return {
    /**
     * One call of an entry point that creates no task; the answer is returned whole.
     *
     * Creates: an endpoint that creates a task is refused before any request (InvalidInput naming
     * GenerateAndPoll and rtgCreateGatewayTask), since a user's retry policy would resend it after a 500
     * or a time-out. The one exception is a create whose task this client cannot poll (vendor B with
     * `vendorBQueryPath: false`, which rtgCreateGatewayTask refuses): it is sent at most once, like every
     * create (CreateAmbiguous on a 500, time-out, reset, or a retried attempt after a lost one).
     *
     * Synchronous POSTs (chat completions, responses, messages, generateContent, images): a 500 or a
     * time-out stays a retryable TransientServiceError (its details say `ambiguous: true`), so the caller's
     * retry policy may send the call again, and a provider may bill both. Decided so because such a call
     * leaves no task behind to duplicate, its answer is the only result and cannot be fetched any other
     * way, and retrying it is what the providers' own clients do. A workflow that must never repeat one
     * sets `maximumAttempts: 1` on this activity (then a 429 or a 503 is not retried either).
     */
    async rtgCallGateway(input: GatewayCallInput): Promise<GatewayCallResult> {
      const entryPoint = isGatewayEndpointName(input.endpoint) ? taskCreatedBy(input.endpoint) : undefined;
      if (entryPoint !== undefined) {
        if (deps.video.gatewayPath(TASK_ADAPTERS[entryPoint].queries.default) !== undefined) {
          throw refuseCreate(input.endpoint, entryPoint);
        }
        const { record } = await createTaskAtMostOnce(deps.video, entryPoint, input);
        return { endpoint: input.endpoint, status: record?.status ?? 200, body: record?.raw };
      }
      try {
        const res = await deps.video.gateway(input.endpoint, {
          ...(input.params ? { params: input.params } : {}),
          ...(input.body !== undefined ? { body: input.body } : {}),
          ...(input.checkWellKnown ? { checkWellKnown: true } : {}),
        });
        return { endpoint: res.endpoint, status: res.status, body: redactCallbackUrls(res.body) };
      } catch (err) {
        throw toApplicationFailure(answeredUnreadable(err) ?? err, phaseOf(input.endpoint));
      }
    },

    /**
     * Creates the task of an asynchronous entry point at most once per activity (createTaskAtMostOnce),
     * after checking that the task can be polled.
     */
    async rtgCreateGatewayTask(input: GatewayCreateInput): Promise<GatewayCreateResult> {
      queryEndpointFor(deps.video, input.entryPoint, input.queryKind);
      return createGatewayTask(deps.video, input);
    },

    /** The create inside the worker's video quota: GenerateAndPoll's tasks count against it too. */
    async rtgCreateGatewayTaskWithinQuota({ admission, ...input }: GatewayQuotaCreateInput) {
      queryEndpointFor(deps.video, input.entryPoint, input.queryKind);
      const wanted = videoSlotFor(deps.admission?.video, admission.fairnessKey, {
        kind: input.entryPoint,
        body: input.body,
        field: 'body',
      });
      return sendWithinQuota(wanted, admission, () => createGatewayTask(deps.video, input));
    },

    rtgKeepGatewayVideo: (input) => keepGatewayVideo(deps, input),

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
        (view) => view.final,
      );
      return { ...task, taskId: input.taskId, raw: redactCallbackUrls(task.raw) };
    },
  };
}
