// The end-of-run verdict: every job against its expected outcome, the sandbox's video and review tasks
// counted per job (and per review batch), and the sandbox's full request log against the spec's rules.
// Pure: everything it needs is passed in.
//
// No blind resubmits: a job makes at most one video task and one review task per batch. Every further
// task is a duplicate and fails the soak, unless the job opted in to resubmitting (`resubmitOnAmbiguity`)
// and the resubmit was what that option promises (an ambiguous answer, and no callback of the earlier
// task had reached the run before it): those are counted apart, as "opted in". A request sent again is
// the audit's (video.duplicate-create, review.duplicate-submit: after a task id the client saw, or after an
// ambiguous answer by a job that did not opt in), which reads each request's job from its tags.
//
// A job that ends SubmitUnconfirmed did what the policy says only when the request log shows an
// ambiguous answer to that job's submit or create (500, client time-out, reset, unreadable 2xx, or an
// answer its worker never received) and nothing could confirm it: no task was made, or the task's
// callbacks never reached the run (dropped, receiver or Temporal down), or the call carried no callback
// address (the sync submit). That is "unconfirmed (correct)", with the reason. Any other SubmitUnconfirmed
// (say, the task's callback was delivered while the run waited) is a wrong outcome: lost.
//
// A review query whose answer was lost with its worker may have seen `cancelled`, so the run never queries
// that task again (docs/rules.md, "After a lost answer"): it waits for the task's final callback. When
// that never reaches the run it ends ReviewTimedOut, or ReviewFailed "its state is unknown". That is
// counted with the unconfirmed jobs, correct only when the history holds the lost answer
// (QueryAnswerLost) and no final callback of the job's review tasks was delivered before the run ended.
import {
  auditRequestLog,
  type CallbackLogEntry,
  type RequestLogEntry,
  type ReviewTaskSummary,
  type VideoTaskSummary,
} from 'temporal-review-video-sandbox';
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
  optedIn?: boolean;
  expected: string;
  got: string;
  detail?: string;
}

export interface Verdict {
  jobs: {
    planned: number;
    /** Ended with the expected outcome. */
    finished: number;
    /** Ended SubmitUnconfirmed, correctly (see `unconfirmed`). */
    unconfirmed: number;
    lost: number;
    notFinished: number;
    wrongOutcome: number;
    /** Jobs started with resubmitOnAmbiguity: true. */
    optedIn: number;
    byOutcome: Record<string, number>;
  };
  lost: JobProblem[];
  /** SubmitUnconfirmed jobs whose evidence shows nothing could confirm the submit; `detail` says why. */
  unconfirmed: JobProblem[];
  /** The same, counted by stage and reason. */
  unconfirmedByReason: Record<string, number>;
  videoTasks: number;
  /** Video tasks beyond the first of a job (opted-in resubmits apart). Any is a failure. */
  duplicateVideoTasks: number;
  duplicates: JobProblem[];
  reviewTasks: number;
  /** Review tasks beyond the first of a batch (opted-in resubmits apart). Any is a failure. */
  duplicateReviewTasks: number;
  reviewDuplicates: JobProblem[];
  /**
   * Opted-in jobs: submits and creates they sent again after an ambiguous answer, and the extra tasks
   * those resubmits made (after an ambiguous answer nothing had confirmed).
   */
  optedIn: { resubmits: number; videoTasks: number; reviewTasks: number; problems: JobProblem[] };
  violations: Array<{ rule: string; detail: string }>;
  violationsByRule: Record<string, number>;
  /**
   * The slowest review and generation stages of the jobs that ended as expected, from the sandbox's logs
   * (first submit to first create or last review query/callback; create to last query/callback of the
   * task): how close normal jobs came to the stage time-outs that SubmitUnconfirmed jobs wait out.
   */
  slowestStages: { reviewMs: number; reviewJob?: string; generationMs: number; generationJob?: string };
}

export interface VerdictOptions {
  minQueryIntervalMs: number;
  /** The clients' time-out: an answer held back longer than this (a hang fault) was never seen by them. */
  clientTimeoutMs: number;
}

/** The soak's pass condition on the verdict (the secret scan is checked apart). */
export function verdictOk(v: Verdict): boolean {
  return v.jobs.lost === 0 && v.duplicateVideoTasks === 0 && v.duplicateReviewTasks === 0 && v.violations.length === 0;
}

const SUBMIT_UNCONFIRMED = 'SubmitUnconfirmed';
const CREATE_AMBIGUOUS = '"CreateAmbiguous"';
/** The activity's message when an earlier attempt vanished mid-call (worker killed, or it timed out). */
const ATTEMPT_LOST = 'ended without an answer';
const SUBMITS = new Set(['review.submitAsync', 'review.submitSync']);

export function verdictOf(
  records: JobRecord[],
  sandbox: SandboxSnapshot,
  histories: Map<string, string>,
  o: VerdictOptions,
): Verdict {
  const tasksByJob = groupBy(sandbox.videoTasks, (t) => jobIdOfCreateBody(t.body));
  const reviewTasksByJob = groupBy(sandbox.reviewTasks, (t) => t.urls.map(jobIdOfUrl).find((id) => id !== undefined));
  const createsByJob = groupBy(
    sandbox.requests.filter((e) => e.operation === 'video.create'),
    (e) => jobIdOfCreateBody(e.body),
  );
  const submitsByJob = groupBy(
    sandbox.requests.filter((e) => SUBMITS.has(e.operation)),
    (e) =>
      submittedUrls(e.body)
        .map(jobIdOfUrl)
        .find((id) => id !== undefined),
  );
  const callbacksByTask = groupBy(sandbox.callbacks, (c) => c.taskId);
  const byOutcome: Record<string, number> = {};
  const lost: JobProblem[] = [];
  const unconfirmed: JobProblem[] = [];
  const unconfirmedByReason: Record<string, number> = {};
  const duplicates: JobProblem[] = [];
  const reviewDuplicates: JobProblem[] = [];
  const optedIn: Verdict['optedIn'] = { resubmits: 0, videoTasks: 0, reviewTasks: 0, problems: [] };
  const violations: Verdict['violations'] = [];
  let notFinished = 0;
  let wrongOutcome = 0;
  let optedInJobs = 0;
  const slowestStages: Verdict['slowestStages'] = { reviewMs: 0, generationMs: 0 };
  const queriesByTask = groupBy(
    sandbox.requests.filter((e) => e.operation === 'review.query' || e.operation === 'video.get'),
    (e) => e.taskId,
  );
  const lastSeen = (taskId: string) =>
    Math.max(
      ...(queriesByTask.get(taskId) ?? []).map((e) => e.at),
      ...(callbacksByTask.get(taskId) ?? []).filter((c) => c.outcome === 'delivered').map((c) => c.at),
    );

  for (const r of records) {
    const { job } = r;
    const got = r.outcome ?? 'not finished';
    byOutcome[got] = (byOutcome[got] ?? 0) + 1;
    if (job.optedIn) optedInJobs++;
    const problem = (detail?: string): JobProblem => ({
      workflowId: job.workflowId,
      kind: job.kind,
      callbacks: job.callbacks,
      ...(job.optedIn ? { optedIn: true } : {}),
      expected: job.expected,
      got,
      ...(detail ? { detail } : {}),
    });
    const tasks = [...(tasksByJob.get(job.id) ?? [])].sort((a, b) => a.createdAt - b.createdAt);
    const history = histories.get(job.workflowId) ?? '';
    let reviewUnconfirmed = false;

    if (got === 'not finished') {
      notFinished++;
      lost.push(problem(r.error?.slice(0, 300)));
    } else if (got === SUBMIT_UNCONFIRMED) {
      const stage = r.details?.stage;
      const requests =
        stage === 'reviewing'
          ? batchSubmits(submitsByJob.get(job.id) ?? [], r.details?.urls)
          : stage === 'creating'
            ? (createsByJob.get(job.id) ?? [])
            : [];
      const why = unconfirmedWhy(
        r.details,
        requests,
        callbacksByTask,
        history,
        r.endedAt ?? Infinity,
        o.clientTimeoutMs,
      );
      if (why.correct) {
        unconfirmed.push(problem(why.detail));
        unconfirmedByReason[why.reason] = (unconfirmedByReason[why.reason] ?? 0) + 1;
        reviewUnconfirmed = stage === 'reviewing';
      } else {
        wrongOutcome++;
        lost.push(problem(`${why.detail}${r.error ? ` | ${r.error.slice(0, 200)}` : ''}`));
      }
    } else if (got !== job.expected && (got === 'ReviewTimedOut' || got === 'ReviewFailed')) {
      const why = answerLostWhy(
        got,
        r.error ?? '',
        history,
        (reviewTasksByJob.get(job.id) ?? []).map((t) => t.taskId),
        callbacksByTask,
        r.endedAt ?? Infinity,
      );
      if (why.correct) {
        unconfirmed.push(problem(why.detail));
        unconfirmedByReason[why.reason] = (unconfirmedByReason[why.reason] ?? 0) + 1;
        reviewUnconfirmed = true;
      } else {
        wrongOutcome++;
        lost.push(problem(`${why.detail}${r.error ? ` | ${r.error.slice(0, 200)}` : ''}`));
      }
    } else if (got !== job.expected) {
      wrongOutcome++;
      lost.push(problem(r.error?.slice(0, 300)));
    } else if (got === 'succeeded') {
      const task = tasks.find((t) => t.id === r.taskId);
      if (task?.status !== 'succeeded') {
        wrongOutcome++;
        lost.push(
          problem(`result names task ${r.taskId}, which the sandbox has ${task ? `as ${task.status}` : 'not at all'}`),
        );
      }
    }

    if (got === job.expected) {
      const submits = submitsByJob.get(job.id) ?? [];
      const creates = createsByJob.get(job.id) ?? [];
      if (submits.length > 0) {
        const end =
          creates.length > 0
            ? Math.min(...creates.map((e) => e.at))
            : Math.max(...(reviewTasksByJob.get(job.id) ?? []).map((t) => lastSeen(t.taskId)));
        const ms = end - Math.min(...submits.map((e) => e.at));
        if (Number.isFinite(ms) && ms > slowestStages.reviewMs)
          Object.assign(slowestStages, { reviewMs: ms, reviewJob: job.workflowId });
      }
      const own = tasks.find((t) => t.id === r.taskId) ?? tasks[0];
      if (own && creates.length > 0) {
        const ms = lastSeen(own.id) - Math.min(...creates.map((e) => e.at));
        if (Number.isFinite(ms) && ms > slowestStages.generationMs)
          Object.assign(slowestStages, { generationMs: ms, generationJob: job.workflowId });
      }
    }

    // No blind resubmit: the audit's duplicate rules flag a job that did not opt in (below); an opted-in
    // job's submits and creates sent again after an ambiguous answer are counted here.
    if (job.optedIn) {
      const stageRequests = [
        ...groupBy(submitsByJob.get(job.id) ?? [], (e) => [...submittedUrls(e.body)].sort().join(' ')).values(),
        createsByJob.get(job.id) ?? [],
      ];
      for (const list of stageRequests) {
        const sorted = [...list].sort((a, b) => a.at - b.at);
        const first = sorted.findIndex((e) => ambiguousAnswer(e, o.clientTimeoutMs));
        if (first >= 0) optedIn.resubmits += sorted.length - first - 1;
      }
    }

    if ((job.expectedTasks === 0 || reviewUnconfirmed) && tasks.length > 0) {
      violations.push({
        rule: 'video.create-after-review-failed',
        detail: `${job.workflowId} (${job.kind}, ${got}) created ${tasks.length} video task(s)`,
      });
    }

    // Video tasks: the first one is the job's; every further one is a duplicate (or an opted-in resubmit).
    if (tasks.length > 1) {
      const detail = `${tasks.length} video tasks: ${tasks.map((t) => `${t.id} (${t.status}, callbacks ${callbackOutcomes(sandbox.callbacks, t.id)})`).join(', ')}`;
      const creates = [...(createsByJob.get(job.id) ?? [])].sort((a, b) => a.at - b.at);
      for (const [i, extra] of tasks.entries()) {
        if (i === 0) continue;
        const earlier = tasks.slice(0, i);
        if (job.optedIn && resubmitAsPromised(earlier, extra.createdAt, creates, callbacksByTask, history)) {
          optedIn.videoTasks++;
          optedIn.problems.push(problem(`video: ${detail}`));
        } else {
          duplicates.push(problem(detail));
        }
      }
    }

    // Review tasks: one per batch (a batch holds one media type).
    const reviewTasks = reviewTasksByJob.get(job.id) ?? [];
    for (const [kind, batchTasks] of groupBy(reviewTasks, (t) => extensionKind(t.urls[0] ?? ''))) {
      if (batchTasks.length < 2) continue;
      const sorted = [...batchTasks].sort((a, b) => a.createdAt - b.createdAt);
      const submits = [...(submitsByJob.get(job.id) ?? [])]
        .filter((e) => extensionKind(submittedUrls(e.body)[0] ?? '') === kind)
        .sort((a, b) => a.at - b.at);
      const detail = `${sorted.length} review tasks for the ${kind.toLowerCase()} batch: ${sorted.map((t) => `${t.taskId} (${t.status}, callbacks ${callbackOutcomes(sandbox.callbacks, t.taskId)})`).join(', ')}`;
      for (const [i, extra] of sorted.entries()) {
        if (i === 0) continue;
        const earlier = sorted.slice(0, i).map((t) => ({ id: t.taskId }));
        if (job.optedIn && resubmitAsPromised(earlier, extra.createdAt, submits, callbacksByTask, history)) {
          optedIn.reviewTasks++;
          optedIn.problems.push(problem(`review: ${detail}`));
        } else {
          reviewDuplicates.push(problem(detail));
        }
      }
    }
  }

  const asSeen = sandbox.requests.map((e) => asSeenByClient(e, o.clientTimeoutMs));
  // Every job names itself in its prompt and media URLs: the audit's duplicate rules count per job, and a
  // job that opted in to resubmitting may send again after an ambiguous answer.
  const optedInIds = new Set(records.filter((r) => r.job.optedIn).map((r) => r.job.id));
  const audit = {
    minQueryIntervalMs: o.minQueryIntervalMs,
    jobOf: jobOfRequest,
    optedIn: (e: RequestLogEntry) => optedInIds.has(jobOfRequest(e) ?? ''),
  };
  for (const v of auditRequestLog(asSeen, audit)) violations.push({ rule: v.rule, detail: `#${v.seq}: ${v.detail}` });
  const violationsByRule: Record<string, number> = {};
  for (const v of violations) violationsByRule[v.rule] = (violationsByRule[v.rule] ?? 0) + 1;

  const finished = records.length - notFinished - wrongOutcome - unconfirmed.length;
  return {
    jobs: {
      planned: records.length,
      finished,
      unconfirmed: unconfirmed.length,
      lost: lost.length,
      notFinished,
      wrongOutcome,
      optedIn: optedInJobs,
      byOutcome,
    },
    lost,
    unconfirmed,
    unconfirmedByReason,
    videoTasks: sandbox.videoTasks.length,
    duplicateVideoTasks: duplicates.length,
    duplicates,
    reviewTasks: sandbox.reviewTasks.length,
    duplicateReviewTasks: reviewDuplicates.length,
    reviewDuplicates,
    optedIn,
    violations,
    violationsByRule,
    slowestStages,
  };
}

type Why = { correct: true; reason: string; detail: string } | { correct: false; detail: string };

const FINAL_REVIEW_STATES = new Set(['completed', 'failed', 'cancelled']);
/** What the workflow's failure says when a lost answer left a review task's state unknown. */
const STATE_UNKNOWN = 'state is unknown';

/**
 * Whether a job that should have ended otherwise rightly ended ReviewTimedOut or ReviewFailed because one
 * of its review queries lost its answer (which may have been `cancelled`): its history holds the lost
 * answer, and no final callback of its review tasks reached the receiver before the run ended (the one
 * thing that could have told the run the task's state without a query).
 */
export function answerLostWhy(
  got: string,
  error: string,
  history: string,
  reviewTaskIds: string[],
  callbacksByTask: Map<string, CallbackLogEntry[]>,
  endedAt: number,
): Why {
  if (!history.includes('QueryAnswerLost'))
    return { correct: false, detail: `${got}, but no review query of the run lost its answer` };
  if (got === 'ReviewFailed' && !error.includes(STATE_UNKNOWN))
    return { correct: false, detail: 'ReviewFailed after a lost answer, but not for an unknown state' };
  // The task the failure names (`review task <id> not final ...`): another batch's task may have ended well.
  const named = reviewTaskIds.filter((id) => error.includes(id));
  const lostTasks = named.length > 0 ? named : reviewTaskIds;
  for (const id of lostTasks) {
    const final = (callbacksByTask.get(id) ?? []).find(
      (c) => c.outcome === 'delivered' && FINAL_REVIEW_STATES.has(c.status) && c.at < endedAt,
    );
    if (final && got === 'ReviewTimedOut')
      return {
        correct: false,
        detail: `a review answer was lost, but task ${id}'s final callback (${final.status}) was delivered while the run waited`,
      };
  }
  const fates = lostTasks.map((id) => `${id}: ${callbackFates(callbacksByTask.get(id) ?? [])}`).join('; ');
  return {
    correct: true,
    reason: `review: answer lost, ${got === 'ReviewTimedOut' ? 'no final callback reached the run' : 'state unknown'}`,
    detail: `a review query's answer was lost with its worker; ${fates || 'no review task'}`,
  };
}

/**
 * Why a run ended SubmitUnconfirmed, from its failure's details (stage, lastError), its stage's requests
 * in the request log, the callback log and its history: correct only when a submit/create got an
 * ambiguous answer and no task it made could have been confirmed: no callback of it delivered before the
 * run ended, and its id nowhere in the run's history (a callback whose delivery the sandbox logged as
 * failed can still reach the run: the receiver keeps signalling after the sender gave up).
 */
export function unconfirmedWhy(
  details: Record<string, unknown> | undefined,
  requests: RequestLogEntry[],
  callbacksByTask: Map<string, CallbackLogEntry[]>,
  history: string,
  endedAt: number,
  clientTimeoutMs: number,
): Why {
  const stage = details?.stage;
  if (stage !== 'reviewing' && stage !== 'creating')
    return { correct: false, detail: `SubmitUnconfirmed without a stage in its details (${String(stage)})` };
  const what = stage === 'reviewing' ? 'review submit' : 'video create';
  const ambiguous = requests.filter((e) => ambiguousAnswer(e, clientTimeoutMs));
  // The last ambiguity was an attempt that vanished mid-call (its worker killed): the log may show nothing.
  const attemptLost = typeof details?.lastError === 'string' && details.lastError.includes(ATTEMPT_LOST);
  if (ambiguous.length === 0 && !attemptLost) {
    return {
      correct: false,
      detail: `SubmitUnconfirmed (${stage}), but the log shows no ambiguous answer to its ${requests.length} ${what} request(s) and no lost attempt`,
    };
  }
  const evidence = [
    ...ambiguous.map((e) => `#${e.seq} ${e.operation} ${answerWords(e)}`),
    ...(attemptLost ? ['an attempt lost with its worker'] : []),
  ].join(', ');
  const missingAddress = requests.filter((e) => e.operation !== 'review.submitSync' && !hasCallbackUrl(e.body));
  if (missingAddress.length > 0) {
    // Every soak worker has a callback receiver: an async submit or a create without the address is a bug.
    return {
      correct: false,
      detail: `${what} request(s) ${missingAddress.map((e) => `#${e.seq}`).join(', ')} carried no callback_url although the worker has a receiver (${evidence})`,
    };
  }
  const taskIds = [...new Set(requests.flatMap((e) => (e.taskId !== undefined ? [e.taskId] : [])))];
  for (const id of taskIds) {
    const delivered = (callbacksByTask.get(id) ?? []).find((c) => c.outcome === 'delivered' && c.at < endedAt);
    if (delivered) {
      return {
        correct: false,
        detail: `task ${id} was made (${evidence}) and its callback (${delivered.status}) was delivered while the run waited, yet it ended SubmitUnconfirmed`,
      };
    }
    if (history.includes(id)) {
      return {
        correct: false,
        detail: `task ${id} was made (${evidence}) and the run's history names it (a callback reached the run), yet it ended SubmitUnconfirmed`,
      };
    }
  }
  const stageWord = stage === 'reviewing' ? 'review' : 'create';
  if (taskIds.length === 0) {
    const reason =
      ambiguous.length > 0
        ? `${stageWord}: no task made (fault before commit)`
        : `${stageWord}: no task made (attempt lost with its worker)`;
    return { correct: true, reason, detail: `no task made; ${evidence}` };
  }
  if (requests.every((e) => e.operation === 'review.submitSync')) {
    return {
      correct: true,
      reason: `${stageWord}: sync submit (no callback can confirm it)`,
      detail: `sync submit made ${taskIds.join(', ')}; nothing can name it to the run; ${evidence}`,
    };
  }
  const fates = taskIds.map((id) => `${id}: ${callbackFates(callbacksByTask.get(id) ?? [])}`).join('; ');
  return {
    correct: true,
    reason: `${stageWord}: task made, its callbacks never reached the run`,
    detail: `${fates}; ${evidence}`,
  };
}

/**
 * The client got no clear answer: a 5xx that may have been processed (a hang without commit ends in a
 * 504), an answer it never received (it had gone: its time-out, or its worker killed), a reset, or an
 * unreadable body. A hang that commits and that the client waited out (the sync submit waits up to the
 * review time-out) is a clear answer.
 */
export function ambiguousAnswer(e: RequestLogEntry, _clientTimeoutMs: number): boolean {
  if (e.clientGone) return true;
  const f = e.fault;
  if (!f) return e.status === 0;
  if (f.startsWith('hang:')) return !f.endsWith(':commit');
  if (/^(reset|malformed)/.test(f)) return true;
  const status = /^status:(\d+)/.exec(f);
  return !!status && Number(status[1]) >= 500 && Number(status[1]) !== 503;
}

function answerWords(e: RequestLogEntry): string {
  if (e.clientGone) return `answered ${e.status} after the client was gone${e.fault ? ` (${e.fault})` : ''}`;
  return e.fault ? `fault ${e.fault}${e.taskId ? `, made ${e.taskId}` : ''}` : `status ${e.status}`;
}

function callbackFates(callbacks: CallbackLogEntry[]): string {
  if (callbacks.length === 0) return 'no callback sent';
  const words: Record<CallbackLogEntry['outcome'], string> = {
    delivered: 'delivered after the run ended',
    dropped: 'dropped',
    error: 'receiver down',
    rejected: 'refused (Temporal down)',
  };
  return callbacks.map((c) => `${c.status} ${words[c.outcome]}`).join(', ');
}

/**
 * An opted-in job's resubmit made `extraCreatedAt`'s task as the option promises: its history shows an
 * ambiguous answer, and no callback of an earlier task had been delivered before that resubmit was sent.
 */
function resubmitAsPromised(
  earlier: Array<{ id: string }>,
  extraCreatedAt: number,
  requests: RequestLogEntry[],
  callbacksByTask: Map<string, CallbackLogEntry[]>,
  history: string,
): boolean {
  if (!history.includes(CREATE_AMBIGUOUS)) return false;
  const sentAt = [...requests].reverse().find((e) => e.at <= extraCreatedAt)?.at ?? extraCreatedAt;
  return earlier.every(
    ({ id }) => !(callbacksByTask.get(id) ?? []).some((c) => c.outcome === 'delivered' && c.at < sentAt),
  );
}

/** The submits of one batch: those whose URLs are exactly `urls` (all of the job's when not given). */
function batchSubmits(submits: RequestLogEntry[], urls: unknown): RequestLogEntry[] {
  if (!Array.isArray(urls)) return submits;
  const wanted = new Set(urls.map(String));
  return submits.filter((e) => {
    const sent = new Set(submittedUrls(e.body));
    return sent.size === wanted.size && [...wanted].every((u) => sent.has(u));
  });
}

/** The soak job a create or submit belongs to: the tag in its prompt, or the path of its media URLs. */
function jobOfRequest(e: RequestLogEntry): string | undefined {
  if (SUBMITS.has(e.operation))
    return submittedUrls(e.body)
      .map(jobIdOfUrl)
      .find((id) => id !== undefined);
  return jobIdOfCreateBody(e.body);
}

function submittedUrls(body: unknown): string[] {
  const b = body as { images?: unknown; asset_url_list?: unknown } | undefined;
  const list = Array.isArray(b?.asset_url_list) ? b.asset_url_list : Array.isArray(b?.images) ? b.images : [];
  return list.filter((u): u is string => typeof u === 'string');
}

function hasCallbackUrl(body: unknown): boolean {
  const url = (body as { callback_url?: unknown } | undefined)?.callback_url;
  return typeof url === 'string' && url.length > 0;
}

/**
 * The request log records what the sandbox answered, also when it answered after a hang the client had
 * already given up on: such an answer (say, "cancelled") never reached the client, and the audit must not
 * hold the client to it. It becomes what the client saw: no answer.
 */
export function asSeenByClient(e: RequestLogEntry, clientTimeoutMs: number): RequestLogEntry {
  const hang = /^hang:(\d+)/.exec(e.fault ?? '');
  // The sync submit waits up to the review time-out, not the client time-out: it saw a held-back answer
  // unless it had gone.
  const unseen =
    e.clientGone === true || (!!hang && Number(hang[1]) > clientTimeoutMs && e.operation !== 'review.submitSync');
  if (!unseen) return e;
  const { response: _response, retryAfter: _retryAfter, ...rest } = e;
  return { ...rest, status: 0 };
}

function extensionKind(url: string): string {
  return /\.(mp4|mov)$/i.test(url) ? 'Video' : /\.(wav|mp3)$/i.test(url) ? 'Audio' : 'Image';
}

function callbackOutcomes(callbacks: CallbackLogEntry[], taskId: string): string {
  const seen = callbacks
    .filter((c) => c.taskId === taskId)
    .map((c) => `${c.status}:${c.outcome}${c.fault ? `/${c.fault}` : ''}`);
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
  return {
    totalRequests: sandbox.requests.length,
    faultedRequests,
    requests,
    callbacks,
    callbackDeliveries: deliveries,
  };
}

export type FaultCounts = ReturnType<typeof faultCounts>;
