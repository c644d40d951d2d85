// The other entry points of the video generation service ({base_url}), as data: the spec gives their
// method and path only ("Other entry points"), so every call shares the native API's bearer auth,
// deadline and error classification, and only the path differs. Pure: workflow code imports the names.
import { RequestValidationError } from '../validation.js';
import { pathParam } from '../path-param.js';

export type GatewayArea = 'video' | 'text' | 'image';
/** sync: the answer is the result. create: answers a task id. query: reads a task created by a create. */
export type GatewayKind = 'sync' | 'create' | 'query';
export type GatewayParam = 'model' | 'task_id' | 'video_id';

export interface GatewayEndpoint {
  method: 'GET' | 'POST';
  /** Path template; `{model}`, `{task_id}` and `{video_id}` are filled percent-encoded. */
  path: string;
  area: GatewayArea;
  kind: GatewayKind;
  /** multipart: a FormData body is accepted besides a JSON object. */
  body: 'none' | 'json' | 'json-or-multipart';
  /** false: not in the spec's table (a documented default that the client config can change). */
  inSpec: boolean;
}

const endpoint = (
  method: GatewayEndpoint['method'],
  path: string,
  area: GatewayArea,
  kind: GatewayKind,
  body: GatewayEndpoint['body'] = method === 'GET' ? 'none' : 'json',
  inSpec = true,
): GatewayEndpoint => ({
  method,
  path,
  area,
  kind,
  body,
  inSpec,
});

/**
 * Vendor B's create path is in the spec, its query path is not. Default: the query path of the public API
 * whose create path vendor B mirrors (`/ent/v2/text2video` -> `GET /ent/v2/tasks/{id}/creations`), under
 * the same `/video-b` prefix. Overridable per client (`gateway.vendorBQueryPath`), or `false` = create only.
 */
export const DEFAULT_VENDOR_B_QUERY_PATH = '/video-b/ent/v2/tasks/{task_id}/creations';

export const GATEWAY_ENDPOINTS = {
  videoGenerations: endpoint('POST', '/v1/video/generations', 'video', 'create'),
  videoGenerationsGet: endpoint('GET', '/v1/video/generations/{task_id}', 'video', 'query'),
  vendorAText2Video: endpoint('POST', '/video-a/v1/videos/text2video', 'video', 'create'),
  vendorAText2VideoGet: endpoint('GET', '/video-a/v1/videos/text2video/{task_id}', 'video', 'query'),
  vendorAImage2VideoGet: endpoint('GET', '/video-a/v1/videos/image2video/{task_id}', 'video', 'query'),
  vendorAOmniVideoGet: endpoint('GET', '/video-a/v1/videos/omni-video/{task_id}', 'video', 'query'),
  vendorBText2Video: endpoint('POST', '/video-b/ent/v2/text2video', 'video', 'create'),
  vendorBTaskGet: endpoint('GET', DEFAULT_VENDOR_B_QUERY_PATH, 'video', 'query', 'none', false),
  videos: endpoint('POST', '/v1/videos', 'video', 'create', 'json-or-multipart'),
  videosGet: endpoint('GET', '/v1/videos/{video_id}', 'video', 'query'),
  chatCompletions: endpoint('POST', '/v1/chat/completions', 'text', 'sync'),
  responses: endpoint('POST', '/v1/responses', 'text', 'sync'),
  generateContent: endpoint('POST', '/v1beta/models/{model}:generateContent', 'text', 'sync'),
  messages: endpoint('POST', '/v1/messages', 'text', 'sync'),
  imagesGenerations: endpoint('POST', '/v1/images/generations', 'image', 'sync'),
  imagesEdits: endpoint('POST', '/v1/images/edits', 'image', 'sync', 'json-or-multipart'),
  aigcImages: endpoint('POST', '/v1/aigc-images/generations', 'image', 'create'),
  aigcImagesGet: endpoint('GET', '/v1/aigc-images/generations/{task_id}', 'image', 'query'),
  geminiProImage: endpoint('POST', '/v1beta/models/gemini-3-pro-image-preview:generateContent', 'image', 'sync'),
  geminiFlashImage: endpoint('POST', '/v1beta/models/gemini-2.5-flash-image:generateContent', 'image', 'sync'),
} as const satisfies Record<string, GatewayEndpoint>;

export type GatewayEndpointName = keyof typeof GATEWAY_ENDPOINTS;
export const GATEWAY_ENDPOINT_NAMES = Object.keys(GATEWAY_ENDPOINTS) as GatewayEndpointName[];

export function isGatewayEndpointName(value: unknown): value is GatewayEndpointName {
  return typeof value === 'string' && Object.hasOwn(GATEWAY_ENDPOINTS, value);
}

/** The operation name used in errors, e.g. `video.gateway.chatCompletions`. */
export const gatewayOperation = (name: GatewayEndpointName): string => `video.gateway.${name}`;

/** The `{name}` placeholders of a path template, in order. */
export function templateParams(template: string): GatewayParam[] {
  return [...template.matchAll(/\{([a-z_]+)\}/g)].map((m) => m[1] as GatewayParam);
}

/**
 * Fills a path template. Every placeholder must be given as a non-empty string and is percent-encoded
 * (a `/`, `:`, `?` or `#` in a model or id stays inside its segment); parameters the template does not
 * name are refused, so a caller's mistake is not silently dropped.
 */
export function fillPath(
  operation: string,
  template: string,
  params: Partial<Record<GatewayParam, string>> = {},
): string {
  const wanted = templateParams(template);
  const extra = Object.keys(params).filter((k) => !wanted.includes(k as GatewayParam));
  if (extra.length > 0) {
    throw new RequestValidationError(
      operation,
      extra.map((field) => ({ field, rule: `is not a parameter of ${template}` })),
    );
  }
  return template.replace(/\{([a-z_]+)\}/g, (_m, name: GatewayParam) => pathParam(operation, name, params[name]));
}
