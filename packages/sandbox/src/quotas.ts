// The sandbox's own quotas (its real capacity): per credential, and per model for video, the tasks in
// flight and the creates (submits) admitted within a sliding window. A service asks before it makes a
// task: a refusal is a 429 that makes nothing; `started` counts a task made, `finished` frees its slot
// when the task is final (succeeded, failed, expired, cancelled; completed, failed, cancelled).
// The window slides (admission times of the last `quotaWindowMs`) rather than resetting on the minute:
// no burst of twice the limit across a boundary, a Retry-After that is exact (the oldest admission
// leaving the window), and test outcomes that do not depend on when in the minute they run.
import { errorReply, type Reply } from './reply.js';
import type { QuotaCounters, QuotaOptions, QuotaRefusal, QuotaStats, QuotaUpdate, ServiceKind } from './types.js';

const DEFAULT_WINDOW_MS = 60_000;

interface Breach {
  refusal: QuotaRefusal;
  /** When the limit should free, from now. */
  waitMs: number;
}

const newCounters = (): QuotaCounters => ({
  inFlight: 0,
  peakInFlight: 0,
  admitted: 0,
  refused: 0,
  refusedBy: { tasksInFlight: 0, perMinute: 0 },
});

function own(map: Record<string, number> | undefined, key: string | undefined): number | undefined {
  return map !== undefined && key !== undefined && Object.hasOwn(map, key) ? map[key] : undefined;
}

export class QuotaBook {
  private limits: QuotaOptions;
  /** Scope (service + credential, or + model) -> its tasks in flight (task key -> when it is due to end). */
  private readonly inFlight = new Map<string, Map<string, number>>();
  /** Scope -> admission times within the window, oldest first. */
  private readonly windows = new Map<string, number[]>();
  private readonly counters = new Map<string, QuotaCounters>();
  /** Task key -> the scopes it counts in. */
  private readonly live = new Map<string, string[]>();

  constructor(private readonly initial: QuotaOptions) {
    this.limits = structuredClone(initial);
  }

  current(): QuotaOptions {
    return structuredClone(this.limits);
  }

  set(update: QuotaUpdate): void {
    const next: Record<string, unknown> = { ...this.limits };
    for (const [k, v] of Object.entries(update)) {
      if (v === null) delete next[k];
      else if (v !== undefined) next[k] = structuredClone(v);
    }
    this.limits = next as QuotaOptions;
  }

  /** A 429 answer when a create (submit) now would pass a limit (counted as refused), else undefined. */
  ask(service: ServiceKind, credential: string, model?: string): Reply | undefined {
    const scopes = scopesOf(service, credential, model);
    const breaches = this.breaches(service, scopes, model);
    const first = breaches[0];
    if (!first) return undefined;
    for (const scope of scopes) {
      const c = this.countersOf(scope);
      c.refused += 1;
      if (first.refusal.limit === 'tasks-in-flight') c.refusedBy.tasksInFlight += 1;
      else c.refusedBy.perMinute += 1;
    }
    // Free again only once every limit passed has freed.
    const waitMs = Math.max(...breaches.map((b) => b.waitMs));
    return this.reply(service, first.refusal, waitMs);
  }

  /** A task was made: it holds a slot until `finished`. */
  started(service: ServiceKind, credential: string, model: string | undefined, taskId: string, dueAt: number): void {
    const key = `${service}\u0000${taskId}`;
    const scopes = scopesOf(service, credential, model);
    this.live.set(key, scopes);
    const at = Date.now();
    for (const scope of scopes) {
      const tasks = this.inFlight.get(scope) ?? new Map<string, number>();
      this.inFlight.set(scope, tasks);
      tasks.set(key, dueAt);
      const window = this.prunedWindow(scope, at);
      this.windows.set(scope, window);
      window.push(at);
      const c = this.countersOf(scope);
      c.admitted += 1;
      c.inFlight = tasks.size;
      c.peakInFlight = Math.max(c.peakInFlight, tasks.size);
    }
  }

  /** The task reached a final state (or was cancelled): its slot is free. Idempotent. */
  finished(service: ServiceKind, taskId: string): void {
    const key = `${service}\u0000${taskId}`;
    for (const scope of this.live.get(key) ?? []) {
      const tasks = this.inFlight.get(scope);
      tasks?.delete(key);
      this.countersOf(scope).inFlight = tasks?.size ?? 0;
    }
    this.live.delete(key);
  }

  stats(credentials: { video: string; review: string }): QuotaStats {
    const videoScope = scopesOf('video', credentials.video)[0] as string;
    const byModel: Record<string, QuotaCounters> = {};
    const prefix = `${videoScope}\u0000`;
    for (const [scope, c] of this.counters) {
      if (scope.startsWith(prefix)) byModel[scope.slice(prefix.length)] = structuredClone(c);
    }
    return {
      video: { ...structuredClone(this.countersOf(videoScope)), byModel },
      review: structuredClone(this.countersOf(scopesOf('review', credentials.review)[0] as string)),
    };
  }

  /** Forgets every task and count, and restores the quotas given at start. */
  reset(): void {
    this.limits = structuredClone(this.initial);
    this.inFlight.clear();
    this.windows.clear();
    this.counters.clear();
    this.live.clear();
  }

  private breaches(service: ServiceKind, scopes: string[], model: string | undefined): Breach[] {
    const l = this.limits;
    const video = service === 'video';
    const [credentialScope, modelScope] = scopes as [string, string | undefined];
    const checks: Array<[QuotaRefusal['limit'], QuotaRefusal['scope'], string | undefined, number | undefined]> = [
      ['tasks-in-flight', 'credential', credentialScope, video ? l.videoMaxTasksInFlight : l.reviewMaxTasksInFlight],
      ['tasks-in-flight', 'model', modelScope, own(l.videoMaxTasksInFlightByModel, model)],
      ['per-minute', 'credential', credentialScope, video ? l.videoMaxCreatesPerMinute : l.reviewMaxSubmitsPerMinute],
      ['per-minute', 'model', modelScope, own(l.videoMaxCreatesPerMinuteByModel, model)],
    ];
    const out: Breach[] = [];
    const now = Date.now();
    const windowMs = this.limits.quotaWindowMs ?? DEFAULT_WINDOW_MS;
    for (const [limit, scopeKind, scope, max] of checks) {
      if (scope === undefined || max === undefined) continue;
      const refusal: QuotaRefusal = { limit, scope: scopeKind, ...(model !== undefined ? { model } : {}), max };
      if (limit === 'tasks-in-flight') {
        const tasks = this.inFlight.get(scope) ?? new Map<string, number>();
        let firstDue = Infinity;
        for (const dueAt of tasks.values()) firstDue = Math.min(firstDue, dueAt);
        if (tasks.size >= max) out.push({ refusal, waitMs: tasks.size > 0 ? firstDue - now : windowMs });
      } else {
        const window = this.prunedWindow(scope, now);
        if (window.length >= max)
          out.push({ refusal, waitMs: window.length > 0 ? window[0]! + windowMs - now : windowMs });
      }
    }
    return out;
  }

  private reply(service: ServiceKind, refusal: QuotaRefusal, waitMs: number): Reply {
    const forModel = refusal.scope === 'model' ? ` for model ${refusal.model}` : '';
    const windowS = (this.limits.quotaWindowMs ?? DEFAULT_WINDOW_MS) / 1000;
    const reply =
      refusal.limit === 'tasks-in-flight'
        ? errorReply(
            429,
            'too_many_tasks_in_flight',
            `at most ${refusal.max} ${service} tasks in flight${forModel}; retry once one of them has ended`,
          )
        : errorReply(
            429,
            'rate_limit_exceeded',
            `at most ${refusal.max} ${service === 'video' ? 'creates' : 'submits'} per ${windowS} s${forModel}`,
          );
    reply.quota = refusal;
    const option = service === 'video' ? this.limits.videoQuotaRetryAfter : this.limits.reviewQuotaRetryAfter;
    if (option !== 'none') {
      const seconds = typeof option === 'number' ? option : Math.max(1, Math.ceil(waitMs / 1000));
      reply.headers = { 'retry-after': String(seconds) };
    }
    return reply;
  }

  /** The scope's admission times still within the window at `now`. */
  private prunedWindow(scope: string, now: number): number[] {
    const window = this.windows.get(scope) ?? [];
    const windowMs = this.limits.quotaWindowMs ?? DEFAULT_WINDOW_MS;
    while (window.length > 0 && (window[0] as number) <= now - windowMs) window.shift();
    return window;
  }

  private countersOf(scope: string): QuotaCounters {
    let c = this.counters.get(scope);
    if (!c) this.counters.set(scope, (c = newCounters()));
    return c;
  }
}

/** The credential's scope first, then (video with a model) the model's. */
function scopesOf(service: ServiceKind, credential: string, model?: string): string[] {
  const base = `${service}\u0000${credential}`;
  return service === 'video' && model !== undefined ? [base, `${base}\u0000${model}`] : [base];
}
