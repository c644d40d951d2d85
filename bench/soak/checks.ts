// The end-of-run verdict: every job against its expected outcome, the sandbox's video tasks counted per
// job, and the sandbox's full request log against the spec's rules. Pure: everything it needs is passed in.
import { auditRequestLog, type CallbackLogEntry, type RequestLogEntry, type ReviewTaskSummary, type VideoTaskSummary } from '../../src/sandbox/index.js';
import type { JobRecord } from './driver.js';
import { jobIdOfCreateBody, jobIdOfUrl } from './jobs.js';

export interface SandboxSnapshot {
  requests: RequestLogEntry[];
  callbacks: CallbackLogEntry[];
  videoTasks: VideoTaskSummary[];
  reviewTasks: ReviewTaskSummary[];
}

export interface JobProblem {
  workflowId: string;
  kind: string;
  callbacks: boolean;
  expected: string;
  got: string;
  detail?: string;
}

export interface Verdict {
  jobs: { planned: number; finished: number; lost: number; notFinished: number; wrongOutcome: number; byOutcome: Record<string, number> };
  lost: JobProblem[];
  videoTasks: number;
  /** Video tasks beyond the one a job may create, when the job could have known the first one's id. */
  duplicateTasks: number;
  duplicates: JobProblem[];
  /**
   * Tasks made by a resubmit after an ambiguous create when no id could be obtained (spec: "resubmit only
   * when none was obtained"): a polling job (no callback can name the task), or a callback job none of
   * whose task's callbacks reached the workflow before the resubmit.
   */
  ambiguousResubmits: { polling: number; callbacksLost: number };
  ambiguous: JobProblem[];
  /** Review tasks beyond one per batch (an ambiguous submit is retried; the spec's no-duplicate rule is about video tasks). */
  extraReviewTasks: number;
  violations: Array<{ rule: string; detail: string }>;
  violationsByRule: Record<string, number>;
}

const CREATE_AMBIGUOUS = '"CreateAmbiguous"';

export interface VerdictOptions {
  minQueryIntervalMs: number;
  /** The clients' time-out: an answer held back longer than this (a hang fault) was never seen by them. */
  clientTimeoutMs: number;
}

export function verdictOf(records: JobRecord[], sandbox: SandboxSnapshot, histories: Map<string, string>, o: VerdictOptions): Verdict {
  const tasksByJob = groupBy(sandbox.videoTasks, (t) => jobIdOfCreateBody(t.body));
  const reviewTasksByJob = groupBy(sandbox.reviewTasks, (t) => t.urls.map(jobIdOfUrl).find((id) => id !== undefined));
  const byOutcome: Record<string, number> = {};
  const lost: JobProblem[] = [];
  const duplicates: JobProblem[] = [];
  const ambiguous: JobProblem[] = [];
  const ambiguousResubmits = { polling: 0, callbacksLost: 0 };
  const createsByJob = groupBy(
    sandbox.requests.filter((e) => e.operation === 'video.create'),
    (e) => jobIdOfCreateBody(e.body),
  );
  const violations: Verdict['violations'] = [];
  let notFinished = 0;
  let wrongOutcome = 0;
  let duplicateTasks = 0;
  let extraReviewTasks = 0;

  for (const r of records) {
    const { job } = r;
    const got = r.outcome ?? 'not finished';
    byOutcome[got] = (byOutcome[got] ?? 0) + 1;
    const problem = (detail?: string): JobProblem => ({ workflowId: job.workflowId, kind: job.kind, callbacks: job.callbacks, expected: job.expected, got, ...(detail ? { detail } : {}) });
    const tasks = tasksByJob.get(job.id) ?? [];

    if (got === 'not finished') {
      notFinished++;
      lost.push(problem());
    } else if (got !== job.expected) {
      wrongOutcome++;
      lost.push(problem(r.error?.slice(0, 300)));
    } else if (got === 'succeeded') {
      const task = tasks.find((t) => t.id === r.taskId);
      if (task?.status !== 'succeeded') {
        wrongOutcome++;
        lost.push(problem(`result names task ${r.taskId}, which the sandbox has ${task ? `as ${task.status}` : 'not at all'}`));
      }
    }

    if (job.expectedTasks === 0 && tasks.length > 0) {
      violations.push({ rule: 'video.create-after-review-failed', detail: `${job.workflowId} (${job.kind}) created ${tasks.length} video task(s)` });
    }
    if (tasks.length > 1) {
      const history = histories.get(job.workflowId) ?? '';
      const detail = `${tasks.length} tasks: ${tasks.map((t) => `${t.id} (${t.status}, callbacks ${callbackOutcomes(sandbox.callbacks, t.id)})`).join(', ')}`;
      const kept = tasks.find((t) => t.id === r.taskId) ?? tasks[tasks.length - 1]!;
      const creates = createsByJob.get(job.id) ?? [];
      for (const orphan of tasks.filter((t) => t !== kept)) {
        const resubmittedAt = creates.find((c) => c.at > orphan.createdAt)?.at ?? Infinity;
        const named = sandbox.callbacks.some((c) => c.kind === 'video' && c.taskId === orphan.id && c.outcome === 'delivered' && c.at < resubmittedAt);
        if (history.includes(CREATE_AMBIGUOUS) && (!job.callbacks || !named)) {
          if (job.callbacks) ambiguousResubmits.callbacksLost++;
          else ambiguousResubmits.polling++;
          ambiguous.push(problem(detail));
        } else {
          duplicateTasks++;
          duplicates.push(problem(detail));
        }
      }
    }
    const batches = job.input.review ? new Set(reviewUrls(job).map(extensionKind)).size : 0;
    extraReviewTasks += Math.max(0, (reviewTasksByJob.get(job.id)?.length ?? 0) - batches);
  }

  const asSeen = sandbox.requests.map((e) => asSeenByClient(e, o.clientTimeoutMs));
  for (const v of auditRequestLog(asSeen, { minQueryIntervalMs: o.minQueryIntervalMs })) violations.push({ rule: v.rule, detail: `#${v.seq}: ${v.detail}` });
  const violationsByRule: Record<string, number> = {};
  for (const v of violations) violationsByRule[v.rule] = (violationsByRule[v.rule] ?? 0) + 1;

  const finished = records.length - notFinished - wrongOutcome;
  return {
    jobs: { planned: records.length, finished, lost: lost.length, notFinished, wrongOutcome, byOutcome },
    lost,
    videoTasks: sandbox.videoTasks.length,
    duplicateTasks,
    duplicates,
    ambiguousResubmits,
    ambiguous,
    extraReviewTasks,
    violations,
    violationsByRule,
  };
}

/**
 * The request log records what the sandbox answered, also when it answered after a hang the client had
 * already given up on: such an answer (say, "cancelled") never reached the client, and the audit must not
 * hold the client to it. It becomes what the client saw: no answer.
 */
export function asSeenByClient(e: RequestLogEntry, clientTimeoutMs: number): RequestLogEntry {
  const hang = /^hang:(\d+)/.exec(e.fault ?? '');
  if (!hang || Number(hang[1]) <= clientTimeoutMs) return e;
  const { response: _response, retryAfter: _retryAfter, ...rest } = e;
  return { ...rest, status: 0 };
}

function reviewUrls(job: JobRecord['job']): string[] {
  const content = (job.input.task as { content?: Array<Record<string, { url?: string } | string>> }).content ?? [];
  return content.flatMap((c) => ['image_url', 'video_url', 'audio_url'].map((k) => (c[k] as { url?: string } | undefined)?.url).filter((u): u is string => !!u));
}

function extensionKind(url: string): string {
  return /\.(mp4|mov)$/i.test(url) ? 'Video' : /\.(wav|mp3)$/i.test(url) ? 'Audio' : 'Image';
}

function callbackOutcomes(callbacks: CallbackLogEntry[], taskId: string): string {
  const seen = callbacks.filter((c) => c.taskId === taskId).map((c) => `${c.status}:${c.outcome}${c.fault ? `/${c.fault}` : ''}`);
  return seen.length > 0 ? seen.join(' ') : 'none';
}

function groupBy<T>(items: T[], key: (t: T) => string | undefined): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    if (k === undefined) continue;
    const list = out.get(k);
    if (list) list.push(item);
    else out.set(k, [item]);
  }
  return out;
}

/** Faults the sandbox really applied, from its logs: per operation and fault label, and per callback mode. */
export function faultCounts(sandbox: SandboxSnapshot) {
  const requests: Record<string, Record<string, number>> = {};
  let faultedRequests = 0;
  for (const e of sandbox.requests) {
    if (!e.fault) continue;
    faultedRequests++;
    const op = (requests[e.operation] ??= {});
    op[e.fault] = (op[e.fault] ?? 0) + 1;
  }
  const callbacks: Record<string, Record<string, number>> = {};
  const deliveries: Record<string, number> = {};
  for (const c of sandbox.callbacks) {
    deliveries[c.outcome] = (deliveries[c.outcome] ?? 0) + 1;
    if (!c.fault) continue;
    const kind = (callbacks[c.kind] ??= {});
    kind[c.fault] = (kind[c.fault] ?? 0) + 1;
  }
  // A duplicated delivery is logged twice: count the fault once.
  for (const kind of Object.values(callbacks)) if (kind.duplicate) kind.duplicate = Math.ceil(kind.duplicate / 2);
  return { totalRequests: sandbox.requests.length, faultedRequests, requests, callbacks, callbackDeliveries: deliveries };
}

export type FaultCounts = ReturnType<typeof faultCounts>;
