// Client of the video generation service ({base_url}). Bearer authentication only: the review service's
// headers are never sent here. Every entry point goes through `request`, so endpoints added later share
// the auth, deadline and error handling.
import type { VideoServiceConfig } from '../../config.js';
import { malformedResponseError } from '../classify.js';
import { assertServiceConfig } from '../config-guard.js';
import { RequestValidationError } from '../errors.js';
import { ServiceHttp, type HttpMethod, type HttpResponse } from '../http.js';
import { asRecord } from '../lenient.js';
import { pathParam } from '../path-param.js';
import { createTaskResponseSchema, normalizeVideoTask, validateCreateTaskBody, type CreateTaskBody, type VideoTask } from './schemas.js';

export class VideoClient {
  // A true private field: the key does not show in util.inspect or JSON.stringify of the client.
  readonly #apiKey: string;
  readonly #http: ServiceHttp;
  readonly #cancelMethod: HttpMethod;
  readonly #cancelPath: string;

  /** `accessToken?: never`: a config that also holds the review token does not type-check (and throws). */
  constructor(config: VideoServiceConfig & { accessToken?: never }) {
    assertServiceConfig('video', config);
    if (!config.cancelPath.startsWith('/') || !config.cancelPath.includes('{id}')) {
      throw new TypeError('VideoClient: config.cancelPath must start with / and contain {id}');
    }
    this.#apiKey = config.apiKey;
    this.#cancelMethod = config.cancelMethod;
    this.#cancelPath = config.cancelPath;
    this.#http = new ServiceHttp({ service: 'video', baseUrl: config.baseUrl, timeoutMs: config.timeoutMs, secrets: [config.apiKey] });
  }

  /** POST /v1/task/create. Validated first: a body breaking the spec throws RequestValidationError and nothing is sent. */
  async createTask(body: CreateTaskBody): Promise<{ id: string; raw: unknown }> {
    const operation = 'video.create';
    const checked = validateCreateTaskBody(body);
    if (!checked.ok) throw new RequestValidationError(operation, checked.issues);
    const res = await this.request(operation, 'POST', '/v1/task/create', checked.value);
    const parsed = createTaskResponseSchema.safeParse(res.body);
    if (!parsed.success) throw malformedResponseError({ service: 'video', operation }, res.status, res.body, 'no task id in the body');
    return { id: parsed.data.id, raw: res.body };
  }

  /** GET /v1/task/get/{id}. */
  async getTask(id: string): Promise<VideoTask> {
    const operation = 'video.get';
    const res = await this.request(operation, 'GET', `/v1/task/get/${pathParam(operation, 'id', id)}`);
    if (!asRecord(res.body)) throw malformedResponseError({ service: 'video', operation }, res.status, res.body, 'a body that is not a task record');
    return normalizeVideoTask(res.body);
  }

  /** Cancel: method and path are not shown in the spec, so they come from the config (`{id}` is replaced). */
  async cancelTask(id: string): Promise<{ raw: unknown }> {
    const operation = 'video.cancel';
    const path = this.#cancelPath.split('{id}').join(pathParam(operation, 'id', id));
    const res = await this.request(operation, this.#cancelMethod, path);
    return { raw: res.body };
  }

  close(): Promise<void> {
    return this.#http.close();
  }

  private request(operation: string, method: HttpMethod, path: string, body?: unknown): Promise<HttpResponse> {
    return this.#http.send({ operation, method, path, headers: { authorization: `Bearer ${this.#apiKey}` }, body });
  }
}
