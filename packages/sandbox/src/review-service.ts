// The asset review service ({identity_url}): sync and async submit, task query, review callbacks, and
// the signed downstream addresses it hands out. Task life: pending -> processing (done_count rising item
// by item) -> completed | failed | cancelled, spread over reviewDurationMs.
import { credentialOf, reviewAuthProblem } from './auth.js';
import { randomHex, urlPathIncludes, type ServiceContext } from './context.js';
import { errorReply, type Reply } from './reply.js';
import type { RouteInfo, ServiceHandler, ServiceRequest } from './server.js';
import type { ReviewOutcome, ReviewTaskSummary, ReviewVerdict } from './types.js';
import { checkReviewSubmit } from './review-validation.js';
import { hintedOutcome, isFinal, REJECTED, type ReviewTaskState } from './review-task.js';
import { describeIssues } from './validation.js';

export class ReviewService implements ServiceHandler {
  readonly kind = 'review' as const;
  private tasks = new Map<string, ReviewTaskState>();
  private verdicts = new Map<string, ReviewVerdict>();
  private outcomes: Array<{ url: string; outcome: ReviewOutcome; durationMs: number | undefined }> = [];

  constructor(private readonly ctx: ServiceContext) {}

  route(method: string, pathname: string): RouteInfo {
    if (method === 'POST' && pathname === '/api/asset/upload/async') return { operation: 'review.submitAsync' };
    if (method === 'POST' && pathname === '/api/asset/upload/sync') return { operation: 'review.submitSync' };
    const q = /^\/api\/task\/([^/]+)$/.exec(pathname);
    if (method === 'GET' && q) return { operation: 'review.query', taskId: decodeURIComponent(q[1] ?? '') };
    return { operation: 'other' };
  }

  async handle(req: ServiceRequest): Promise<Reply> {
    // Signed downstream addresses are public: their signature is the credential.
    if (req.method === 'GET' && req.url.pathname.startsWith('/signed/')) {
      const { status, body } = this.ctx.assets.fetchSigned(req.url, Date.now());
      return status === 200
        ? { status, text: body, contentType: 'application/octet-stream' }
        : errorReply(status, status === 404 ? 'not_found' : 'forbidden', body);
    }
    const authProblem = reviewAuthProblem(req.headers, this.ctx.options.accessToken);
    if (authProblem) return errorReply(401, 'unauthorized', authProblem);

    switch (req.route.operation) {
      case 'review.submitAsync':
        return this.submit(req, 'async');
      case 'review.submitSync':
        return this.submit(req, 'sync');
      case 'review.query': {
        const task = this.tasks.get(req.route.taskId ?? '');
        if (!task) return errorReply(404, 'task_not_found', `no review task ${req.route.taskId}`);
        return this.paced({ status: 200, json: this.view(task), taskId: task.taskId }, task);
      }
      default:
        return errorReply(
          404,
          'not_found',
          `${req.method} ${req.url.pathname} is not an endpoint of the asset review service`,
        );
    }
  }

  setVerdict(url: string, verdict: ReviewVerdict): void {
    this.verdicts.set(url, verdict);
  }

  setOutcome(url: string, outcome: ReviewOutcome, durationMs?: number): void {
    this.outcomes.push({ url, outcome, durationMs });
  }

  cancel(taskId: string): void {
    const task = this.tasks.get(taskId);
    if (!task) throw new Error(`no review task ${taskId}`);
    if (isFinal(task.status)) return;
    this.ctx.scheduler.cancel(task.timer);
    this.finish(task, 'cancelled');
  }

  summaries(): ReviewTaskSummary[] {
    return [...this.tasks.values()].map((t) => ({
      taskId: t.taskId,
      status: t.status,
      urls: [...t.urls],
      createdAt: t.createdAt,
    }));
  }

  reset(): void {
    for (const t of this.tasks.values()) this.ctx.scheduler.cancel(t.timer);
    this.tasks.clear();
    this.verdicts.clear();
    this.outcomes = [];
  }

  private async submit(req: ServiceRequest, mode: 'async' | 'sync'): Promise<Reply> {
    if (!/^application\/json\b/i.test(req.headers['content-type'] ?? '')) {
      return errorReply(400, 'invalid_request', 'Content-Type: must be application/json');
    }
    if (!req.bodyIsJson) return errorReply(400, 'invalid_request', 'body: is not valid JSON');
    const checked = checkReviewSubmit(req.body, { allowPrivateUrls: this.ctx.options.allowPrivateUrls });
    if (!checked.ok)
      return errorReply(400, 'invalid_request', describeIssues(checked.issues), { issues: checked.issues });

    const s = checked.value;
    const credential = credentialOf(req.headers); // quota: a 429 that makes nothing
    const refused = this.ctx.quotas.ask('review', credential);
    if (refused) return refused;
    const scripted = this.outcomes.find((o) => s.urls.includes(o.url));
    const task: ReviewTaskState = {
      taskId: `rvt-${randomHex(12)}`,
      trackId: String(req.headers['x-track-id']),
      urls: s.urls,
      assetType: s.assetType,
      // The spec calls back only for async submits.
      callbackUrl: mode === 'async' ? s.callbackUrl : undefined,
      status: 'pending',
      doneCount: 0,
      outcome: scripted?.outcome ?? hintedOutcome(s.urls),
      durationMs: scripted?.durationMs ?? this.ctx.options.reviewDurationMs,
      createdAt: Date.now(),
      verdicts: s.urls.map((u) => this.verdicts.get(u) ?? (urlPathIncludes(u, 'reject') ? REJECTED : { passed: true })),
      batchId: `batch-${randomHex(8)}`,
      items: [],
      error: undefined,
      timer: undefined,
      waiters: [],
    };
    this.tasks.set(task.taskId, task);
    this.ctx.quotas.started('review', credential, undefined, task.taskId, task.createdAt + task.durationMs);
    this.schedule(task);

    if (mode === 'sync') {
      await this.waitFinal(task, this.ctx.options.syncReviewWaitMs);
      // An unfinished answer (the wait bound came first) names a task to query: paced like a query answer.
      return this.paced({ status: 200, json: this.view(task), taskId: task.taskId }, task);
    }
    const json: Record<string, unknown> = {
      code: 202,
      task_id: task.taskId,
      track_id: task.trackId,
      status: 'pending',
      message: 'accepted',
    };
    if (s.callbackUrl !== undefined) json.callback_url = s.callbackUrl;
    return { status: 202, json, taskId: task.taskId };
  }

  /** 20% pending, then one step per item; the last step is the final state. */
  private schedule(task: ReviewTaskState): void {
    const pendingMs = task.durationMs * 0.2;
    const stepMs = (task.durationMs - pendingMs) / task.urls.length;
    const step = () => {
      task.timer = this.ctx.scheduler.after(stepMs, () => {
        if (task.doneCount + 1 < task.urls.length) {
          task.doneCount += 1;
          step();
        } else this.finish(task, task.outcome);
      });
    };
    task.timer = this.ctx.scheduler.after(pendingMs, () => {
      task.status = 'processing';
      step();
    });
  }

  private finish(task: ReviewTaskState, outcome: ReviewOutcome): void {
    task.timer = undefined;
    if (outcome === 'completed') {
      const now = Date.now();
      task.doneCount = task.urls.length;
      task.items = task.urls.map((sourceUrl, i) => {
        const verdict = task.verdicts[i] ?? { passed: true };
        const asset = this.ctx.assets.issue({
          sourceUrl,
          taskId: task.taskId,
          approved: verdict.passed,
          signedBase: this.ctx.baseUrls.review,
          ttlMs: this.ctx.options.assetUrlTtlMs,
          now,
        });
        return { asset, verdict };
      });
    } else if (outcome === 'failed') {
      task.error = { code: 'REVIEW_FAILED', message: 'the review service could not process this task' };
    } else {
      task.error = { code: 'REVIEW_CANCELLED', message: 'the review task was cancelled; do not resubmit by default' };
    }
    task.status = outcome;
    this.ctx.quotas.finished('review', task.taskId);
    for (const w of task.waiters.splice(0)) w();
    if (task.callbackUrl) {
      this.ctx.callbacks.send({
        kind: 'review',
        url: task.callbackUrl,
        taskId: task.taskId,
        status: task.status,
        payload: this.view(task),
      });
    }
  }

  /** A busy service may pace its callers on success too (spec, Limits: obeyed when present). */
  private paced(reply: Reply, task: ReviewTaskState): Reply {
    const wait = this.ctx.options.reviewProcessingRetryAfter;
    if (wait !== undefined && !isFinal(task.status)) reply.headers = { 'retry-after': wait };
    return reply;
  }

  private waitFinal(task: ReviewTaskState, boundMs: number): Promise<void> {
    if (isFinal(task.status)) return Promise.resolve();
    return new Promise((resolve) => {
      const bound = this.ctx.scheduler.after(boundMs, resolve);
      task.waiters.push(() => {
        this.ctx.scheduler.cancel(bound);
        resolve();
      });
    });
  }

  /** The query JSON (also the callback payload and the sync answer). */
  private view(task: ReviewTaskState): Record<string, unknown> {
    const out: Record<string, unknown> = {
      code: task.status === 'completed' ? this.ctx.options.reviewCompletedCode : 200,
      task_id: task.taskId,
      status: task.status,
      total_count: task.urls.length,
      done_count: task.doneCount,
      message: task.error?.message ?? (task.status === 'completed' ? 'success' : task.status),
    };
    if (task.status === 'completed') {
      out.result = {
        review_batch_id: task.batchId,
        items: task.items.map(({ asset, verdict }) => ({
          asset_id: asset.assetId,
          source_url: asset.sourceUrl,
          asset_url: asset.assetUrl,
          downstream_asset_id: asset.downstreamAssetId,
          downstream_final_url: asset.downstreamFinalUrl,
          submit_review_status: verdict.passed ? 1 : 0,
          error_code: verdict.passed ? '' : (verdict.errorCode ?? REJECTED.errorCode),
          error_message: verdict.passed ? '' : (verdict.errorMessage ?? REJECTED.errorMessage),
        })),
      };
    }
    if (task.error) {
      out.error_code = task.error.code;
      out.error_message = task.error.message;
      out.error = { ...task.error };
    }
    return out;
  }
}
