// Asynchronous gateway entry points of the video service (unified video, vendor A, vendor B, /v1/videos,
// aigc-images): each task lives queued -> running -> final over videoDurationMs, and every entry point
// speaks its own vocabulary and record shape, modelled on the public API of the same path (the spec shows
// none). Prompt hints: `video-fail` / `video-expire` / `video-cancel` pick the end (an entry point without
// that word fails instead), `state-unknown` inserts a state no adapter lists (`moderating`) before the end.
import { randomHex, type ServiceContext } from './context.js';
import { newId, UNKNOWN_STATE, VOCABULARY, type GatewayTaskKind } from './gateway-vocabulary.js';
import type { VideoOutcome, VideoTaskSummary } from './types.js';

export type Phase = 'queued' | 'running' | 'unknown' | VideoOutcome;

export interface ScriptedGatewayOutcome {
  outcome: VideoOutcome;
  durationMs: number | undefined;
}

interface GatewayTask {
  id: string;
  kind: GatewayTaskKind;
  model: string;
  prompt: string;
  body: Record<string, unknown>;
  phase: Phase;
  outcome: VideoOutcome;
  unknownPhase: boolean;
  createdAt: number;
  updatedAt: number;
  timer: NodeJS.Timeout | undefined;
}

/** The model a create names (`model`, or vendor A's `model_name`), else the entry point's default. */
export function gatewayModel(kind: GatewayTaskKind, body: Record<string, unknown>): string {
  if (typeof body.model === 'string') return body.model;
  return typeof body.model_name === 'string' ? body.model_name : `${kind}-default`;
}

export class GatewayTasks {
  private tasks = new Map<string, GatewayTask>();

  constructor(
    private readonly ctx: ServiceContext,
    private readonly scripted: (model: string, prompt: string) => ScriptedGatewayOutcome | undefined,
  ) {}

  /** Makes the task; it holds a slot of the quota scope (credential, model) until its final phase. */
  create(
    kind: GatewayTaskKind,
    body: Record<string, unknown>,
    quota: { credential: string; model: string },
  ): { id: string; json: unknown } {
    const model = quota.model;
    const prompt = typeof body.prompt === 'string' ? body.prompt : '';
    const script = this.scripted(model, prompt);
    const said = (w: string) => prompt.toLowerCase().includes(w);
    const hinted: VideoOutcome = said('video-fail')
      ? 'failed'
      : said('video-expire')
        ? 'expired'
        : said('video-cancel')
          ? 'cancelled'
          : 'succeeded';
    const now = Date.now();
    const task: GatewayTask = {
      id: newId(kind),
      kind,
      model,
      prompt,
      body,
      phase: 'queued',
      outcome: script?.outcome ?? hinted,
      unknownPhase: said('state-unknown'),
      createdAt: now,
      updatedAt: now,
      timer: undefined,
    };
    this.tasks.set(task.id, task);
    const duration = script?.durationMs ?? this.ctx.options.videoDurationMs;
    this.ctx.quotas.started('video', quota.credential, model, task.id, now + duration);
    const steps: Array<[number, Phase]> = [
      [0.25, 'running'],
      ...(task.unknownPhase ? [[0.5, 'unknown'] as [number, Phase]] : []),
      [1, task.outcome],
    ];
    const next = (i: number, since: number) => {
      const step = steps[i];
      if (!step) return;
      task.timer = this.ctx.scheduler.after(duration * step[0] - since, () => {
        task.phase = step[1];
        task.updatedAt = Date.now();
        task.timer = undefined;
        if (i === steps.length - 1) this.ctx.quotas.finished('video', task.id);
        next(i + 1, duration * step[0]);
      });
    };
    next(0, 0);
    return { id: task.id, json: this.createAnswer(task) };
  }

  /** The query answer, or undefined for an unknown id (or a task of another entry point). */
  query(kind: GatewayTaskKind, id: string): unknown {
    const task = this.tasks.get(id);
    return task?.kind === kind ? this.record(task) : undefined;
  }

  /** A result file exists once its task succeeded. */
  fileReady(id: string): boolean {
    return this.tasks.get(id)?.phase === 'succeeded';
  }

  summaries(): VideoTaskSummary[] {
    return [...this.tasks.values()].map((t) => ({
      id: t.id,
      status: this.state(t),
      model: t.model,
      body: t.body,
      createdAt: t.createdAt,
    }));
  }

  reset(): void {
    for (const t of this.tasks.values()) this.ctx.scheduler.cancel(t.timer);
    this.tasks.clear();
  }

  private state(t: GatewayTask): string {
    if (t.phase === 'unknown') return UNKNOWN_STATE;
    const v = VOCABULARY[t.kind];
    return v[t.phase] ?? v.failed;
  }

  private fileUrl(t: GatewayTask): string {
    return `${this.ctx.baseUrls.video}/gateway-files/${encodeURIComponent(t.id)}.${t.kind === 'aigcImages' ? 'png' : 'mp4'}`;
  }

  private progress(t: GatewayTask): number {
    return t.phase === 'queued' ? 0 : t.phase === 'running' ? 40 : t.phase === 'unknown' ? 60 : 100;
  }

  private createAnswer(t: GatewayTask): unknown {
    switch (t.kind) {
      case 'vendorB':
        return {
          task_id: t.id,
          state: this.state(t),
          model: t.model,
          prompt: t.prompt,
          created_at: new Date(t.createdAt).toISOString(),
        };
      case 'unifiedVideo':
        return { task_id: t.id, status: this.state(t) };
      default:
        return this.record(t);
    }
  }

  private record(t: GatewayTask): unknown {
    const state = this.state(t);
    const done = t.phase === 'succeeded';
    const failed = !done && t.phase !== 'queued' && t.phase !== 'running' && t.phase !== 'unknown';
    const failure = { code: `TASK_${t.phase.toUpperCase()}`, message: `the task ended ${t.phase} (sandbox)` };
    switch (t.kind) {
      case 'unifiedVideo':
        return {
          task_id: t.id,
          status: state,
          model: t.model,
          progress: this.progress(t),
          created_at: Math.floor(t.createdAt / 1000),
          ...(done ? { url: this.fileUrl(t), format: 'mp4' } : {}),
          ...(failed ? { error: failure } : {}),
        };
      case 'vendorA':
        return {
          code: 0,
          message: 'SUCCEED',
          request_id: randomHex(8),
          data: {
            task_id: t.id,
            task_status: state,
            task_status_msg: failed ? failure.message : '',
            task_info: {},
            created_at: t.createdAt,
            updated_at: t.updatedAt,
            task_result: { videos: done ? [{ id: `${t.id}-0`, url: this.fileUrl(t), duration: '5' }] : [] },
          },
        };
      case 'vendorB':
        return {
          id: t.id,
          state,
          err_code: failed ? failure.code : '',
          creations: done ? [{ id: `${t.id}-0`, url: this.fileUrl(t), cover_url: `${this.fileUrl(t)}.jpg` }] : [],
        };
      case 'videos':
        return {
          id: t.id,
          object: 'video',
          model: t.model,
          status: state,
          progress: this.progress(t),
          created_at: Math.floor(t.createdAt / 1000),
          // OpenAI's Video: the nullable fields are always present. The file is kept an hour after completion.
          completed_at: done || failed ? Math.floor(t.updatedAt / 1000) : null,
          expires_at: done ? Math.floor(t.updatedAt / 1000) + 3600 : null,
          prompt: t.prompt === '' ? null : t.prompt,
          remixed_from_video_id: null,
          seconds: typeof t.body.seconds === 'string' ? t.body.seconds : '4',
          size: typeof t.body.size === 'string' ? t.body.size : '720x1280',
          error: failed ? failure : null,
        };
      case 'aigcImages':
        return {
          code: 'success',
          message: '',
          data: {
            task_id: t.id,
            status: state,
            progress: `${this.progress(t)}%`,
            ...(done ? { images: [{ url: this.fileUrl(t) }] } : {}),
            ...(failed ? { fail_reason: failure.message } : {}),
          },
        };
    }
  }
}
