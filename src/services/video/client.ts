// Client of the video generation service ({base_url}). Bearer authentication only: the review service's
// headers are never sent here. Every entry point goes through `request`, so endpoints added later share
// the auth, deadline and error handling.
import type { VideoServiceConfig } from '../../config/types.js';
import { malformedResponseError } from '../classify.js';
import { assertServiceConfig } from '../config-guard.js';
import { RequestValidationError } from '../../model/validation.js';
import { ServiceHttp, type HttpDownload, type HttpMethod, type HttpResponse } from '../http.js';
import { asRecord } from '../../model/lenient.js';
import { pathParam } from '../../model/path-param.js';
import { parseRetryAfter } from '../retry-after.js';
import {
  GatewayCaller,
  type GatewayCallOptions,
  type GatewayClientOptions,
  type GatewayRequest,
  type GatewayResponse,
  type JsonObject,
  type MultipartBody,
} from './gateway.js';
import type { GatewayEndpointName } from '../../model/video/gateway-endpoints.js';
import {
  createTaskResponseSchema,
  normalizeVideoTask,
  validateCreateTaskBody,
  type CreateTaskBody,
  type VideoTask,
} from '../../model/video/schemas.js';

export class VideoClient {
  // A true private field: the key does not show in util.inspect or JSON.stringify of the client.
  readonly #apiKey: string;
  readonly #http: ServiceHttp;
  readonly #cancelMethod: HttpMethod;
  readonly #cancelPath: string;
  readonly #gateway: GatewayCaller;
  readonly #allowPrivateUrls: boolean;
  /** The base address it was made with (the plugin checks that a pair of clients has two). */
  readonly baseUrl: string;

  /** `accessToken?: never`: a config that also holds the review token does not type-check (and throws). */
  constructor(config: VideoServiceConfig & { accessToken?: never; gateway?: GatewayClientOptions }) {
    assertServiceConfig('video', config);
    if (!config.cancelPath.startsWith('/') || !config.cancelPath.includes('{id}')) {
      throw new TypeError('VideoClient: config.cancelPath must start with / and contain {id}');
    }
    this.#apiKey = config.apiKey;
    this.baseUrl = config.baseUrl;
    this.#cancelMethod = config.cancelMethod;
    this.#cancelPath = config.cancelPath;
    this.#allowPrivateUrls = config.allowPrivateUrls === true;
    this.#http = new ServiceHttp({
      service: 'video',
      baseUrl: config.baseUrl,
      timeoutMs: config.timeoutMs,
      connections: config.connections,
      secrets: [config.apiKey],
    });
    this.#gateway = new GatewayCaller(
      (operation, method, path, body) => this.request(operation, method, path, body),
      config.gateway,
    );
  }

  /** POST /v1/task/create. Validated first: a body breaking the spec throws RequestValidationError and nothing is sent. */
  async createTask(body: CreateTaskBody): Promise<{ id: string; raw: unknown }> {
    const operation = 'video.create';
    const checked = validateCreateTaskBody(body, { allowPrivateUrls: this.#allowPrivateUrls });
    if (!checked.ok) throw new RequestValidationError(operation, checked.issues);
    const res = await this.request(operation, 'POST', '/v1/task/create', checked.value);
    const parsed = createTaskResponseSchema().safeParse(res.body);
    if (!parsed.success)
      throw malformedResponseError({ service: 'video', operation }, res.status, res.body, 'no task id in the body');
    return { id: parsed.data.id, raw: res.body };
  }

  /** GET /v1/task/get/{id}. */
  async getTask(id: string): Promise<VideoTask> {
    const operation = 'video.get';
    const res = await this.request(operation, 'GET', `/v1/task/get/${pathParam(operation, 'id', id)}`);
    if (!asRecord(res.body))
      throw malformedResponseError(
        { service: 'video', operation },
        res.status,
        res.body,
        'a body that is not a task record',
      );
    const task = normalizeVideoTask(res.body);
    // A Retry-After on a successful answer paces the next query too.
    const retryAfterMs = parseRetryAfter(res.headers['retry-after']);
    return retryAfterMs === undefined ? task : { ...task, retryAfterMs };
  }

  /** Cancel: method and path are not shown in the spec, so they come from the config (`{id}` is replaced). */
  async cancelTask(id: string): Promise<{ raw: unknown }> {
    const operation = 'video.cancel';
    const path = this.#cancelPath.split('{id}').join(pathParam(operation, 'id', id));
    const res = await this.request(operation, this.#cancelMethod, path);
    return { raw: res.body };
  }

  // The other entry points (spec: "Other entry points"; table in gateway-endpoints.ts). Bodies are JSON
  // objects sent as given; answers are kept whole. ServiceError / RequestValidationError as above.

  /** Any gateway entry point by name (what the gateway activities use). */
  gateway(name: GatewayEndpointName, request?: GatewayRequest): Promise<GatewayResponse> {
    return this.#gateway.call(name, request);
  }

  /** The path an entry point is called at; undefined when unavailable (vendor B configured create-only). */
  gatewayPath(name: GatewayEndpointName): string | undefined {
    return this.#gateway.pathTemplate(name);
  }

  /** POST /v1/video/generations (unified video, asynchronous). */
  createVideoGeneration(body: JsonObject) {
    return this.gateway('videoGenerations', { body });
  }
  /** GET /v1/video/generations/{task_id} */
  getVideoGeneration(taskId: string) {
    return this.gateway('videoGenerationsGet', { params: { task_id: taskId } });
  }
  /** POST /video-a/v1/videos/text2video (vendor A, asynchronous). */
  createVendorAText2Video(body: JsonObject) {
    return this.gateway('vendorAText2Video', { body });
  }
  /** GET /video-a/v1/videos/text2video/{task_id} */
  getVendorAText2Video(taskId: string) {
    return this.gateway('vendorAText2VideoGet', { params: { task_id: taskId } });
  }
  /** GET /video-a/v1/videos/image2video/{task_id} */
  getVendorAImage2Video(taskId: string) {
    return this.gateway('vendorAImage2VideoGet', { params: { task_id: taskId } });
  }
  /** GET /video-a/v1/videos/omni-video/{task_id} */
  getVendorAOmniVideo(taskId: string) {
    return this.gateway('vendorAOmniVideoGet', { params: { task_id: taskId } });
  }
  /** POST /video-b/ent/v2/text2video (vendor B, asynchronous). */
  createVendorBText2Video(body: JsonObject) {
    return this.gateway('vendorBText2Video', { body });
  }
  /** GET of a vendor B task: not in the spec; the configured `gateway.vendorBQueryPath` (see gateway-endpoints.ts). */
  getVendorBTask(taskId: string) {
    return this.gateway('vendorBTaskGet', { params: { task_id: taskId } });
  }
  /** POST /v1/videos (video task creation): a JSON object, or a FormData (an `input_reference` file) sent as multipart. */
  createVideo(body: JsonObject | MultipartBody, options?: GatewayCallOptions) {
    return this.gateway('videos', { ...options, body });
  }
  /** GET /v1/videos/{video_id} */
  getVideo(videoId: string) {
    return this.gateway('videosGet', { params: { video_id: videoId } });
  }
  /**
   * GET /v1/videos/{video_id}/content: the file of a completed /v1/videos task (its record names no URL),
   * served to the bearer key only. `variant`: `video` (the default), `thumbnail` or `spritesheet`. The body
   * is a stream: read it to its end or destroy it.
   */
  videoContent(
    videoId: string,
    options: { variant?: 'video' | 'thumbnail' | 'spritesheet' } = {},
  ): Promise<HttpDownload> {
    const operation = 'video.gateway.videoContent';
    const query = options.variant ? `?variant=${encodeURIComponent(options.variant)}` : '';
    return this.#http.download({
      operation,
      path: `/v1/videos/${pathParam(operation, 'video_id', videoId)}/content${query}`,
      headers: { authorization: `Bearer ${this.#apiKey}` },
    });
  }
  /** POST /v1/chat/completions */
  chatCompletions(body: JsonObject, options?: GatewayCallOptions) {
    return this.gateway('chatCompletions', { ...options, body });
  }
  /** POST /v1/responses */
  responses(body: JsonObject, options?: GatewayCallOptions) {
    return this.gateway('responses', { ...options, body });
  }
  /** POST /v1beta/models/{model}:generateContent */
  generateContent(model: string, body: JsonObject, options?: GatewayCallOptions) {
    return this.gateway('generateContent', { ...options, params: { model }, body });
  }
  /** POST /v1/messages */
  messages(body: JsonObject, options?: GatewayCallOptions) {
    return this.gateway('messages', { ...options, body });
  }
  /** POST /v1/images/generations */
  imagesGenerations(body: JsonObject, options?: GatewayCallOptions) {
    return this.gateway('imagesGenerations', { ...options, body });
  }
  /** POST /v1/images/edits: a JSON object, or a FormData sent as multipart/form-data. */
  imagesEdits(body: JsonObject | MultipartBody, options?: GatewayCallOptions) {
    return this.gateway('imagesEdits', { ...options, body });
  }
  /** POST /v1/aigc-images/generations (asynchronous). */
  createAigcImage(body: JsonObject) {
    return this.gateway('aigcImages', { body });
  }
  /** GET /v1/aigc-images/generations/{task_id} */
  getAigcImage(taskId: string) {
    return this.gateway('aigcImagesGet', { params: { task_id: taskId } });
  }
  /** POST /v1beta/models/gemini-3-pro-image-preview:generateContent */
  geminiProImage(body: JsonObject, options?: GatewayCallOptions) {
    return this.gateway('geminiProImage', { ...options, body });
  }
  /** POST /v1beta/models/gemini-2.5-flash-image:generateContent */
  geminiFlashImage(body: JsonObject, options?: GatewayCallOptions) {
    return this.gateway('geminiFlashImage', { ...options, body });
  }

  close(): Promise<void> {
    return this.#http.close();
  }

  private request(operation: string, method: HttpMethod, path: string, body?: unknown): Promise<HttpResponse> {
    return this.#http.send({ operation, method, path, headers: { authorization: `Bearer ${this.#apiKey}` }, body });
  }
}
