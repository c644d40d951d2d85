// Client of the asset review service ({identity_url}). Every call carries X-Access-Token and a fresh
// X-Track-Id; a bearer token is never sent here.
import type { ReviewServiceConfig } from '../../config/types.js';
import { httpStatusError, malformedResponseError, type CallContext } from '../classify.js';
import { assertServiceConfig } from '../config-guard.js';
import { RequestValidationError } from '../../model/validation.js';
import { ServiceHttp, type HttpMethod, type HttpResponse } from '../http.js';
import { asRecord } from '../../model/lenient.js';
import { pathParam } from '../../model/path-param.js';
import { parseRetryAfter } from '../retry-after.js';
import {
  normalizeReviewTask,
  unwrapReviewRecord,
  validateReviewSubmitBody,
  type ReviewSubmitBody,
  type ReviewTask,
  type ReviewTaskStatus,
} from '../../model/review/schemas.js';
import { newTrackId } from './track-id.js';

export interface ReviewSubmitAccepted {
  taskId: string;
  status: ReviewTaskStatus;
  /** The X-Track-Id sent with the submit, to correlate with the service's records. */
  trackId: string;
  raw: unknown;
}

interface ReviewResponse extends HttpResponse {
  trackId: string;
}

export class ReviewClient {
  // A true private field: the token does not show in util.inspect or JSON.stringify of the client.
  readonly #accessToken: string;
  readonly #http: ServiceHttp;
  readonly #allowPrivateUrls: boolean;
  /** The base address it was made with (the plugin checks that a pair of clients has two). */
  readonly baseUrl: string;

  /** `apiKey?: never`: a config that also holds the video key does not type-check (and throws). */
  constructor(config: ReviewServiceConfig & { apiKey?: never }) {
    assertServiceConfig('review', config);
    this.#accessToken = config.accessToken;
    this.baseUrl = config.baseUrl;
    this.#allowPrivateUrls = config.allowPrivateUrls === true;
    this.#http = new ServiceHttp({
      service: 'review',
      baseUrl: config.baseUrl,
      timeoutMs: config.timeoutMs,
      connections: config.connections,
      secrets: [config.accessToken],
    });
  }

  /**
   * POST /api/asset/upload/async. Accepted means HTTP 202 with a task_id; a 2xx without task_id is a
   * malformed response and ambiguous (the task may exist). Validated first: nothing is sent if it fails.
   */
  async submitAsync(body: ReviewSubmitBody): Promise<ReviewSubmitAccepted> {
    const operation = 'review.submitAsync';
    const res = await this.request(operation, 'POST', '/api/asset/upload/async', this.checked(operation, body));
    const task = this.task(operation, res);
    if (!task.taskId)
      throw malformedResponseError({ service: 'review', operation }, res.status, res.body, 'no task_id in the body');
    // An accepted submit without a status is pending by definition (spec: states).
    const status = task.rawStatus === undefined ? 'pending' : task.status;
    return { taskId: task.taskId, status, trackId: res.trackId, raw: res.body };
  }

  /**
   * POST /api/asset/upload/sync; its response shape is not shown, so it is read like a review task.
   * It blocks until the review ends: `timeoutMs` gives this call a longer deadline than the client's.
   */
  async submitSync(body: ReviewSubmitBody, options: { timeoutMs?: number } = {}): Promise<ReviewTask> {
    const operation = 'review.submitSync';
    const res = await this.request(
      operation,
      'POST',
      '/api/asset/upload/sync',
      this.checked(operation, body),
      options.timeoutMs,
    );
    return this.task(operation, res);
  }

  /** GET /api/task/{task_id}; `signal`: the caller gave up, and the query must not outlive it. */
  async getTask(taskId: string, options: { signal?: AbortSignal } = {}): Promise<ReviewTask> {
    const operation = 'review.query';
    const path = `/api/task/${pathParam(operation, 'task_id', taskId)}`;
    const res = await this.request(operation, 'GET', path, undefined, undefined, options.signal);
    return this.task(operation, res);
  }

  close(): Promise<void> {
    return this.#http.close();
  }

  private checked(operation: string, body: ReviewSubmitBody): ReviewSubmitBody {
    const r = validateReviewSubmitBody(body, { allowPrivateUrls: this.#allowPrivateUrls });
    if (!r.ok) throw new RequestValidationError(operation, r.issues);
    return r.value;
  }

  /**
   * A review task from a 2xx body. The service has a result `code` in the body too (202, 200 or 0 on
   * success); an error code there (4xx/5xx) is reported like the same HTTP status.
   */
  private task(operation: string, res: ReviewResponse): ReviewTask {
    const ctx: CallContext = { service: 'review', operation };
    if (!asRecord(res.body))
      throw malformedResponseError(ctx, res.status, res.body, 'a body that is not a review task');
    const code = unwrapReviewRecord(res.body).code ?? asRecord(res.body)?.code;
    if (typeof code === 'number' && code >= 400 && code <= 599)
      throw httpStatusError(ctx, code, res.body, undefined, `HTTP ${res.status} with body code ${code}`);
    const task = normalizeReviewTask(res.body);
    // Spec, Limits: Retry-After is obeyed when present, on a 200 too (a task still processing).
    const retryAfterMs = parseRetryAfter(res.headers['retry-after']);
    return retryAfterMs === undefined ? task : { ...task, retryAfterMs };
  }

  private async request(
    operation: string,
    method: HttpMethod,
    path: string,
    body?: unknown,
    timeoutMs?: number,
    signal?: AbortSignal,
  ): Promise<ReviewResponse> {
    const trackId = newTrackId();
    const res = await this.#http.send({
      operation,
      method,
      path,
      headers: { 'x-access-token': this.#accessToken, 'x-track-id': trackId },
      body,
      ...(timeoutMs !== undefined ? { timeoutMs } : {}),
      ...(signal ? { signal } : {}),
    });
    return { ...res, trackId };
  }
}
