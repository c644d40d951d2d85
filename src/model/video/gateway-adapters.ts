// How to read a task of each asynchronous gateway entry point, as data: where the id and the state are,
// which state values are final and which of those is success. The spec shows none of these shapes; each
// adapter lists the fields of the public API of the same path first, then common fallbacks, so a
// differently wrapped record still reads. A state nobody listed is "unknown": never final. Pure.
import { asRecord, errorInfo } from '../lenient.js';
import type { GatewayEndpointName } from './gateway-endpoints.js';

export const GATEWAY_TASK_ENTRY_POINTS = ['unifiedVideo', 'vendorA', 'vendorB', 'videos', 'aigcImages'] as const;
export type GatewayTaskEntryPoint = (typeof GATEWAY_TASK_ENTRY_POINTS)[number];

export const VENDOR_A_QUERY_KINDS = ['text2video', 'image2video', 'omni-video'] as const;
export type VendorAQueryKind = (typeof VENDOR_A_QUERY_KINDS)[number];

export type TaskOutcome = 'succeeded' | 'failed' | 'cancelled' | 'expired';
export type TaskReading = TaskOutcome | 'pending' | 'unknown';

export interface TaskAdapter {
  create: GatewayEndpointName;
  /** Query endpoint per query kind; `default` is used when the input names none. */
  queries: { default: GatewayEndpointName } & Partial<Record<string, GatewayEndpointName>>;
  /** The path parameter of the query endpoints. */
  queryParam: 'task_id' | 'video_id';
  /** Dotted paths (`data.task_result.videos.0.url`), tried in order before the common fallbacks. */
  idFields: readonly string[];
  stateFields: readonly string[];
  urlFields: readonly string[];
  errorFields: readonly string[];
  /** State values (compared lower-case, `-` and spaces as `_`) before the common ones. */
  states: Partial<Record<TaskReading, readonly string[]>>;
  /**
   * Where the result is when a succeeded record names no URL: `videoContent` = downloaded with the key
   * from GET /v1/videos/{video_id}/content (OpenAI's video object has no URL field). Absent: nowhere.
   */
  resultDownload?: 'videoContent';
}

export const COMMON_FIELDS = {
  id: ['task_id', 'id', 'data.task_id', 'data.id', 'data.data.task_id'],
  state: ['status', 'task_status', 'state', 'data.status', 'data.task_status', 'data.state'],
  url: [
    'url',
    'video_url',
    'content.video_url',
    'data.url',
    'data.video_url',
    'data.0.url',
    'output.0.url',
    'result.url',
  ],
  error: ['error', 'data.error', 'err_code', 'data.task_status_msg', 'fail_reason', 'data.fail_reason'],
} as const;

export const COMMON_STATES: Record<Exclude<TaskReading, 'unknown'>, readonly string[]> = {
  succeeded: ['succeeded', 'succeed', 'success', 'successful', 'completed', 'complete', 'done', 'finished'],
  failed: ['failed', 'fail', 'failure', 'error'],
  cancelled: ['cancelled', 'canceled'],
  expired: ['expired'],
  pending: [
    'created',
    'submitted',
    'pending',
    'queued',
    'queueing',
    'in_queue',
    'waiting',
    'not_start',
    'processing',
    'in_progress',
    'running',
    'started',
    'generating',
  ],
};

export const TASK_ADAPTERS: Record<GatewayTaskEntryPoint, TaskAdapter> = {
  // POST /v1/video/generations: `{ task_id, status }` as the unified video APIs of gateways answer; the
  // result may sit in `content.result_url`, and a task the provider gave up on ends `timeout` (failed).
  unifiedVideo: {
    create: 'videoGenerations',
    queries: { default: 'videoGenerationsGet' },
    queryParam: 'task_id',
    idFields: ['task_id', 'id'],
    stateFields: ['status'],
    urlFields: ['url', 'video_url', 'content.result_url', 'metadata.url'],
    errorFields: ['error'],
    states: {
      succeeded: ['succeeded', 'completed'],
      failed: ['failed', 'timeout', 'timed_out'],
      pending: ['queued', 'in_progress'],
    },
  },
  // Vendor A (the text2video / image2video / omni-video task API): `{ code, data: { task_id, task_status } }`.
  vendorA: {
    create: 'vendorAText2Video',
    queries: {
      default: 'vendorAText2VideoGet',
      text2video: 'vendorAText2VideoGet',
      image2video: 'vendorAImage2VideoGet',
      'omni-video': 'vendorAOmniVideoGet',
    },
    queryParam: 'task_id',
    idFields: ['data.task_id'],
    stateFields: ['data.task_status'],
    urlFields: ['data.task_result.videos.0.url'],
    errorFields: ['data.task_status_msg'],
    states: { succeeded: ['succeed'], failed: ['failed'], pending: ['submitted', 'processing'] },
  },
  // Vendor B (the ent/v2 task API): create `{ task_id, state }`, query `{ id, state, err_code, creations }`.
  vendorB: {
    create: 'vendorBText2Video',
    queries: { default: 'vendorBTaskGet' },
    queryParam: 'task_id',
    idFields: ['task_id', 'id'],
    stateFields: ['state'],
    urlFields: ['creations.0.url'],
    errorFields: ['err_code'],
    states: { succeeded: ['success'], failed: ['failed'], pending: ['created', 'queueing', 'processing'] },
  },
  // POST /v1/videos: a video object `{ id, object: 'video', status }`.
  videos: {
    create: 'videos',
    queries: { default: 'videosGet' },
    queryParam: 'video_id',
    idFields: ['id'],
    stateFields: ['status'],
    urlFields: ['url', 'video_url'],
    errorFields: ['error'],
    states: { succeeded: ['completed'], failed: ['failed'], pending: ['queued', 'in_progress'] },
    resultDownload: 'videoContent',
  },
  // POST /v1/aigc-images/generations: shape unknown; `{ task_id, status }` first, `data`-wrapped next.
  aigcImages: {
    create: 'aigcImages',
    queries: { default: 'aigcImagesGet' },
    queryParam: 'task_id',
    idFields: ['task_id', 'data.task_id', 'id'],
    stateFields: ['status', 'data.status'],
    urlFields: ['data.0.url', 'images.0.url', 'data.images.0.url'],
    errorFields: ['error'],
    states: {},
  },
};

export interface GatewayTaskView {
  taskId: string | undefined;
  /** The state as received (undefined when the record carries none). */
  state: string | undefined;
  reading: TaskReading;
  final: boolean;
  url: string | undefined;
  error: { code?: string; message?: string } | undefined;
}

export function isGatewayTaskEntryPoint(value: unknown): value is GatewayTaskEntryPoint {
  return typeof value === 'string' && (GATEWAY_TASK_ENTRY_POINTS as readonly string[]).includes(value);
}

/** The query endpoint of an entry point for a query kind (undefined: that kind does not exist there). */
export function queryEndpointOf(
  entryPoint: GatewayTaskEntryPoint,
  queryKind?: string,
): GatewayEndpointName | undefined {
  const q = TASK_ADAPTERS[entryPoint].queries;
  if (queryKind === undefined) return q.default;
  return Object.hasOwn(q, queryKind) && queryKind !== 'default' ? q[queryKind] : undefined;
}

/** The value at a dotted path; numeric segments index arrays. */
export function at(value: unknown, path: string): unknown {
  let cur: unknown = value;
  for (const key of path.split('.')) {
    if (Array.isArray(cur) && /^\d+$/.test(key)) cur = cur[Number(key)];
    else {
      const r = asRecord(cur);
      if (!r || !Object.hasOwn(r, key)) return undefined;
      cur = r[key];
    }
  }
  return cur;
}

function firstString(body: unknown, paths: readonly string[]): string | undefined {
  for (const p of paths) {
    const v = at(body, p);
    if (typeof v === 'string' && v.trim() !== '') return v;
    if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  }
  return undefined;
}

const norm = (s: string) =>
  s
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');

export function readingOf(adapter: TaskAdapter, state: string | undefined): TaskReading {
  if (state === undefined) return 'unknown';
  const s = norm(state);
  for (const table of [adapter.states, COMMON_STATES]) {
    for (const [reading, values] of Object.entries(table) as Array<[TaskReading, readonly string[] | undefined]>) {
      if (values?.some((v) => norm(v) === s)) return reading;
    }
  }
  return 'unknown';
}

export function isFinalReading(r: TaskReading): r is TaskOutcome {
  return r === 'succeeded' || r === 'failed' || r === 'cancelled' || r === 'expired';
}

function errorOf(body: unknown, paths: readonly string[]): GatewayTaskView['error'] {
  for (const p of paths) {
    const v = at(body, p);
    if (v === undefined || v === null || v === '') continue;
    const e =
      typeof v === 'string' || typeof v === 'number'
        ? errorInfo(undefined, p.endsWith('code') ? v : undefined, p.endsWith('code') ? undefined : v)
        : errorInfo(v, undefined, undefined);
    if (e) return e;
  }
  return undefined;
}

/** Reads one task record (a create answer or a query answer) of an entry point. */
export function readGatewayTask(entryPoint: GatewayTaskEntryPoint, body: unknown): GatewayTaskView {
  const a = TASK_ADAPTERS[entryPoint];
  const state = firstString(body, [...a.stateFields, ...COMMON_FIELDS.state]);
  const reading = readingOf(a, state);
  return {
    taskId: firstString(body, [...a.idFields, ...COMMON_FIELDS.id]),
    state,
    reading,
    final: isFinalReading(reading),
    url: firstString(body, [...a.urlFields, ...COMMON_FIELDS.url]),
    error: reading === 'succeeded' ? undefined : errorOf(body, [...a.errorFields, ...COMMON_FIELDS.error]),
  };
}
