// Audit rules for duplicate creates and submits (spec, Errors: after a 500 or a time-out "resubmit only
// when none was obtained, to avoid duplicate tasks"; "duplicate submit after a time-out" fails). A create
// or review submit is a duplicate when the same job sends it again after an earlier one that
// - made a task the client saw (a 2xx whose body named it): the job has its task, or
// - got an ambiguous answer (no answer: a reset or the client's time-out; a 5xx but 503; a 2xx it could not
//   read an id from): a task may exist, and sending again is a blind resubmit, unless the job opted in
//   to resubmitting (`resubmitOnAmbiguity`; such a job may also have lost a seen answer with its worker,
//   which the log cannot show, so none of its requests is held to this rule).
// After a clear refusal (4xx, 429, 503: nothing was made) sending again is the normal course.
//
// The same job: by default, the same request (a create: the same entry point and body; a submit: the same
// body, sync or async), callback_url included; the package signs one callback address per run and stage,
// so two jobs with the same prompt and media differ by it. A caller that knows its jobs says so with
// `jobOf` (the soak: the job id its prompts and media URLs carry); then a submit repeats an earlier one of
// the job when it sends any URL that one sent.
import type { RequestLogEntry, Violation } from './types.js';

export const DUPLICATE_CREATE_RULE = 'video.duplicate-create';
export const DUPLICATE_SUBMIT_RULE = 'review.duplicate-submit';

export interface ResubmitAuditOptions {
  /** Which job sent a create or submit; undefined (or no function): the request's body tells the job. */
  jobOf?: (e: RequestLogEntry) => string | undefined;
  /** The request's job opted in to resubmitting after an ambiguous answer (`resubmitOnAmbiguity`). */
  optedIn?: (e: RequestLogEntry) => boolean;
}

type Outcome = { kind: 'refused' | 'ambiguous'; why: string } | { kind: 'made'; taskId: string };
const RANK: Record<Outcome['kind'], number> = { refused: 0, ambiguous: 1, made: 2 };

export function duplicateViolations(entries: RequestLogEntry[], o: ResubmitAuditOptions = {}): Violation[] {
  const out: Violation[] = [];
  /** Request key -> what the strongest earlier request of that key left (made > ambiguous > refused). */
  const earlier = new Map<string, { outcome: Outcome; seq: number }>();
  for (const e of [...entries].sort((a, b) => a.seq - b.seq)) {
    const sent = sentRequest(e, o.jobOf);
    if (!sent) continue;
    if (o.optedIn?.(e) !== true) {
      const prior = sent.keys.map((k) => earlier.get(k)).find((p) => p !== undefined && p.outcome.kind !== 'refused');
      if (prior) out.push({ rule: sent.rule, seq: e.seq, detail: `${sent.what} ${because(prior.outcome, prior.seq)}` });
    }
    const outcome = outcomeOf(e);
    for (const k of sent.keys) {
      const p = earlier.get(k);
      if (!p || RANK[outcome.kind] >= RANK[p.outcome.kind]) earlier.set(k, { outcome, seq: e.seq });
    }
  }
  return out;
}

function because(outcome: Outcome, seq: number): string {
  return outcome.kind === 'made'
    ? `sent again by the same job, though the answer to #${seq} gave it task ${outcome.taskId}`
    : `sent again by the same job after #${seq} got no clear answer (${outcome.why}), without an opt-in to resubmit: a task may exist`;
}

/** A create or submit: its rule, its words, and the keys under which it repeats an earlier one. */
function sentRequest(
  e: RequestLogEntry,
  jobOf: ResubmitAuditOptions['jobOf'],
): { rule: string; what: string; keys: string[] } | undefined {
  const job = jobOf?.(e);
  const body = JSON.stringify(e.body) ?? '';
  if (e.operation === 'video.create' || e.gateway === 'create') {
    const path = e.path.split('?')[0] ?? '';
    const who = job !== undefined ? `job ${job}` : `body ${body}`;
    return { rule: DUPLICATE_CREATE_RULE, what: `create (${path})`, keys: [`${e.service} ${path} ${who}`] };
  }
  if (e.operation === 'review.submitAsync' || e.operation === 'review.submitSync') {
    const keys = job !== undefined ? submittedUrls(e.body).map((u) => `job ${job} ${u}`) : [`body ${body}`];
    return { rule: DUPLICATE_SUBMIT_RULE, what: `review submit (${e.operation})`, keys };
  }
  return undefined;
}

/** What the client learnt from the answer: a task it can name, nothing made, or nothing it can tell. */
function outcomeOf(e: RequestLogEntry): Outcome {
  if (e.clientGone === true) return { kind: 'ambiguous', why: 'answered after the client had gone' };
  if (e.status === 0) return { kind: 'ambiguous', why: 'no answer: the connection was reset' };
  if (e.status >= 200 && e.status < 300) {
    const taskId = idIn(e);
    return taskId !== undefined
      ? { kind: 'made', taskId }
      : { kind: 'ambiguous', why: `${e.status} without a task id` };
  }
  if (e.status >= 500 && e.status !== 503) return { kind: 'ambiguous', why: `HTTP ${e.status}` };
  return { kind: 'refused', why: `HTTP ${e.status}: nothing was made` };
}

/** The task id the answer's body gave the client (the other entry points' shapes vary: the sandbox's own). */
function idIn(e: RequestLogEntry): string | undefined {
  const r = e.response;
  if (typeof r !== 'object' || r === null) return undefined;
  const { id, task_id: taskId } = r as Record<string, unknown>;
  if (typeof id === 'string' && id !== '') return id;
  if (typeof taskId === 'string' && taskId !== '') return taskId;
  return e.gateway !== undefined ? e.taskId : undefined;
}

function submittedUrls(body: unknown): string[] {
  const b = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  const list = Array.isArray(b.asset_url_list) ? b.asset_url_list : Array.isArray(b.images) ? b.images : [];
  return list.filter((u): u is string => typeof u === 'string');
}
