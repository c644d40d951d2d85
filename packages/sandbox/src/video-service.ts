// The video generation service ({base_url}), native task API: create, get, cancel (method and path
// configurable: the spec does not show them), status callbacks, and the generated files it links to.
// Task life: queued -> running -> succeeded | failed | expired | cancelled over videoDurationMs.
import { credentialOf, videoAuthProblem } from './auth.js';
import { randomHex, type ServiceContext } from './context.js';
import { familyErrorReply } from './gateway-errors.js';
import { failedStreamReply } from './gateway-streams.js';
import { GatewaySandbox } from './gateway.js';
import { VideoFiles } from './video-file.js';
import { errorReply, type Reply } from './reply.js';
import type { RouteInfo, ServiceHandler, ServiceRequest } from './server.js';
import type { VideoOutcome, VideoTaskSummary } from './types.js';
import { checkVideoCreate, type VideoCreate } from './video-validation.js';
import {
  hintedOutcome,
  isFinal,
  matches,
  type ScriptedOutcome,
  type VideoStatus,
  type VideoTaskState,
} from './video-task.js';
import { assetAddress, describeIssues, type Issue } from './validation.js';

const ERRORS: Partial<Record<VideoStatus, { code: string; message: string }>> = {
  failed: { code: 'GENERATION_FAILED', message: 'video generation failed' },
  expired: { code: 'TASK_EXPIRED', message: 'the task expired before it was processed' },
};

// Body fields echoed in the task record, as the content-generation task APIs this one mirrors do.
const ECHOED = ['ratio', 'resolution', 'duration', 'seed', 'generate_audio', 'watermark'] as const;

export class VideoService implements ServiceHandler {
  readonly kind = 'video' as const;
  private tasks = new Map<string, VideoTaskState>();
  private outcomes: ScriptedOutcome[] = [];
  private readonly cancelPattern: RegExp;
  /** The spec's other entry points (gateway.ts); scripted outcomes apply to their tasks too. */
  private readonly gateway: GatewaySandbox;
  readonly files: VideoFiles; // generated files: signed addresses that expire, real bytes, download faults

  constructor(private readonly ctx: ServiceContext) {
    this.files = new VideoFiles({ bytes: ctx.options.videoFileBytes, ttlMs: ctx.options.videoUrlTtlMs });
    const [before, after] = ctx.options.cancelPath.split('{id}') as [string, string | undefined];
    this.cancelPattern = new RegExp(`^${escapeRegExp(before)}([^/]+)${escapeRegExp(after ?? '')}$`);
    this.gateway = new GatewaySandbox(ctx, (model, prompt) =>
      this.outcomes.find((o) => matches(o.match, { model, prompt } as VideoCreate)),
    );
  }

  route(method: string, pathname: string): RouteInfo {
    const cancel = this.cancelPattern.exec(pathname);
    if (method === this.ctx.options.cancelMethod.toUpperCase() && cancel) {
      return { operation: 'video.cancel', taskId: decodeURIComponent(cancel[1] ?? '') };
    }
    if (method === 'POST' && pathname === '/v1/task/create') return { operation: 'video.create' };
    const get = /^\/v1\/task\/get\/([^/]+)$/.exec(pathname);
    if (method === 'GET' && get) return { operation: 'video.get', taskId: decodeURIComponent(get[1] ?? '') };
    return this.gateway.route(method, pathname) ?? { operation: 'other' };
  }

  shapeError(pathname: string, reply: Reply): Reply {
    return this.gateway.owns(pathname) ? familyErrorReply(pathname, reply) : reply;
  }

  failStream(pathname: string, reply: Reply, fault: { afterEvents?: number; status?: number }): Reply | undefined {
    return this.gateway.owns(pathname) ? failedStreamReply(pathname, reply, fault) : undefined;
  }

  async handle(req: ServiceRequest): Promise<Reply> {
    if (req.route.operation === 'other' && this.gateway.owns(req.url.pathname)) return this.gateway.handle(req);
    // Generated files are downloads at signed addresses (no API key) that expire (video-file.ts).
    const file = /^\/videos\/(?:([^/]+)\/)?([^/]+)\.mp4$/.exec(req.url.pathname);
    if (req.method === 'GET' && file) {
      const task = this.tasks.get(decodeURIComponent(file[2] ?? ''));
      if (task?.status !== 'succeeded') return errorReply(404, 'not_found', 'no such video');
      return this.files.reply(file[1] ?? '', task.id);
    }
    const authProblem = videoAuthProblem(req.headers, this.ctx.options.apiKey);
    if (authProblem) return errorReply(401, 'unauthorized', authProblem);

    switch (req.route.operation) {
      case 'video.create':
        return this.create(req);
      case 'video.get': {
        const task = this.tasks.get(req.route.taskId ?? '');
        if (!task) return errorReply(404, 'task_not_found', `no video task ${req.route.taskId}`);
        return { status: 200, json: this.record(task), taskId: task.id };
      }
      case 'video.cancel':
        return this.cancel(req.route.taskId ?? '');
      default:
        return errorReply(
          404,
          'not_found',
          `${req.method} ${req.url.pathname} is not emulated by the sandbox (native task API only)`,
        );
    }
  }

  setOutcome(match: ScriptedOutcome['match'], outcome: VideoOutcome, durationMs?: number): void {
    this.outcomes.push({ match, outcome, durationMs });
  }

  summaries(): VideoTaskSummary[] {
    const native = [...this.tasks.values()].map((t): VideoTaskSummary => ({
      id: t.id,
      status: t.status,
      model: t.model,
      body: t.body,
      createdAt: t.createdAt,
    }));
    return [...native, ...this.gateway.summaries()];
  }

  reset(): void {
    for (const t of this.tasks.values()) this.ctx.scheduler.cancel(t.timer);
    this.tasks.clear();
    this.outcomes = [];
    this.files.reset();
    this.gateway.reset();
  }

  private create(req: ServiceRequest): Reply {
    if (!/^application\/json\b/i.test(req.headers['content-type'] ?? '')) {
      return errorReply(400, 'invalid_request', 'Content-Type: must be application/json');
    }
    if (!req.bodyIsJson) return errorReply(400, 'invalid_request', 'body: is not valid JSON');
    const checked = checkVideoCreate(req.body, { allowPrivateUrls: this.ctx.options.allowPrivateUrls });
    if (!checked.ok) return invalidRequest(checked.issues);
    const c = checked.value;
    const assetIssues = this.assetIssues(c);
    if (assetIssues.length > 0) return invalidRequest(assetIssues);

    // The account's quota (tasks in flight, creates per minute): a 429 that makes nothing.
    const credential = credentialOf(req.headers);
    const refused = this.ctx.quotas.ask('video', credential, c.model);
    if (refused) return refused;

    const scripted = this.outcomes.find((o) => matches(o.match, c));
    const now = Date.now();
    const task: VideoTaskState = {
      id: `cgt-${new Date(now).toISOString().replace(/\D/g, '').slice(0, 14)}-${randomHex(4)}`,
      model: c.model,
      body: req.body as Record<string, unknown>,
      status: 'queued',
      createdAt: now,
      updatedAt: now,
      callbackUrl: c.callbackUrl,
      outcome: scripted?.outcome ?? hintedOutcome(c),
      durationMs: scripted?.durationMs ?? this.ctx.options.videoDurationMs,
      timer: undefined,
    };
    this.tasks.set(task.id, task);
    this.ctx.quotas.started('video', credential, c.model, task.id, now + task.durationMs);
    task.timer = this.ctx.scheduler.after(task.durationMs * 0.25, () => {
      this.transition(task, 'running');
      task.timer = this.ctx.scheduler.after(task.durationMs * 0.75, () => this.transition(task, task.outcome));
    });
    return { status: 200, json: { id: task.id }, taskId: task.id };
  }

  /** An Asset:// address must come from this sandbox's review service and be approved there. */
  private assetIssues(c: VideoCreate): Issue[] {
    const issues: Issue[] = [];
    for (const m of c.media) {
      const address = assetAddress(m.url); // the scheme in any case, as the registry keeps it
      if (this.ctx.assets.isDownstreamUrl(m.url)) {
        issues.push({
          field: m.field,
          rule: 'is a downstream_final_url (a signed address that expires); use asset_url (Asset://...) instead',
        });
      } else if (address !== undefined) {
        const asset = this.ctx.assets.byAssetUrl(address);
        if (!asset)
          issues.push({ field: m.field, rule: 'this Asset:// address was not issued by the asset review service' });
        else if (!asset.approved) {
          issues.push({
            field: m.field,
            rule: 'this asset did not pass review (submit_review_status 0); a video task cannot use it',
          });
        }
      }
    }
    return issues;
  }

  private cancel(id: string): Reply {
    const task = this.tasks.get(id);
    if (!task) return errorReply(404, 'task_not_found', `no video task ${id}`);
    // Cancelling a task that already ended is not an error here: the answer reports the state it ended in.
    if (!isFinal(task.status)) {
      this.ctx.scheduler.cancel(task.timer);
      this.transition(task, 'cancelled');
    }
    return { status: 200, json: { id: task.id, status: task.status }, taskId: task.id };
  }

  private transition(task: VideoTaskState, status: VideoStatus): void {
    task.status = status;
    task.updatedAt = Date.now();
    if (isFinal(status)) {
      task.timer = undefined;
      this.ctx.quotas.finished('video', task.id);
    }
    if (task.callbackUrl) {
      this.ctx.callbacks.send({
        kind: 'video',
        url: task.callbackUrl,
        taskId: task.id,
        status,
        payload: this.record(task),
      });
    }
  }

  /** The task record: same JSON for get and for callbacks. */
  private record(task: VideoTaskState): Record<string, unknown> {
    const out: Record<string, unknown> = {
      id: task.id,
      model: task.model,
      status: task.status,
      content: task.status === 'succeeded' ? { video_url: this.files.address(this.ctx.baseUrls.video, task.id) } : {},
      created_at: Math.floor(task.createdAt / 1000),
      updated_at: Math.floor(task.updatedAt / 1000),
    };
    const error = ERRORS[task.status];
    if (error) out.error = { ...error };
    for (const k of ECHOED) if (task.body[k] !== undefined) out[k] = task.body[k];
    return out;
  }
}

function invalidRequest(issues: Issue[]): Reply {
  return errorReply(400, 'invalid_request', describeIssues(issues), { issues });
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
