// The soak's figures, as printed lines and as RELIABILITY.md (the record of the last full run).
import { NOTIFY_TIMEOUT_MS } from '../../src/activities/notify.js';
import type { SoakReport } from './soak.js';
import { WEBHOOK_DELAYS_MS } from './webhook-faults.js';

const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const sum = (o: Record<string, number>) => Object.values(o).reduce((a, b) => a + b, 0);
const byLabel = (o: Record<string, number>) =>
  Object.entries(o)
    .sort()
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');

const NOTIFY_DELAYS = `${s(WEBHOOK_DELAYS_MS.short)} or ${s(WEBHOOK_DELAYS_MS.pastDeadline)} (the sender waits ${s(NOTIFY_TIMEOUT_MS)})`;

/** The notification figures, in the words of the printed summary and RELIABILITY.md alike. */
function notifyWords(r: SoakReport) {
  const n = r.notifications;
  const faults = sum(n.faults);
  return {
    outcome: `expected ${n.expected} (one per job that ended, its outcome's event), delivered ${n.delivered} (distinct webhook-ids taken, signature verified), lost ${n.lost}`,
    checks: `wrong event or outcome ${n.wrongOutcome}, bad signatures ${n.badSignatures}, unexpected ids ${n.unexpected}`,
    duplicates: `${n.duplicates} (the same webhook-id taken again: delivery is at least once, receivers deduplicate by id)`,
    faults: `${faults} of ${n.requests} requests to the receiver${faults ? ` (${byLabel(n.faults)})` : ''}`,
  };
}

export function figures(r: SoakReport): string[] {
  const v = r.verdict;
  const f = r.faults;
  const c = r.chaos;
  const requestFaults = Object.values(f.requests).reduce((a, o) => a + sum(o), 0);
  const callbackFaults = Object.values(f.callbacks).reduce((a, o) => a + sum(o), 0);
  return [
    `seed:                   ${r.options.seed} (${r.options.jobs} jobs, ${c.workers} worker process(es))`,
    `jobs finished:          ${v.jobs.finished} of ${v.jobs.planned} with the expected outcome (${Object.entries(
      v.jobs.byOutcome,
    )
      .map(([k, n]) => `${k} ${n}`)
      .join(', ')})`,
    `unconfirmed (correct):  ${v.jobs.unconfirmed}${
      v.jobs.unconfirmed
        ? ` (${Object.entries(v.unconfirmedByReason)
            .map(([k, n]) => `${k} ${n}`)
            .join('; ')})`
        : ''
    }`,
    `jobs lost:              ${v.jobs.lost} (not finished ${v.jobs.notFinished}, wrong outcome ${v.jobs.wrongOutcome})`,
    `duplicate video tasks:  ${v.duplicateVideoTasks} (${v.videoTasks} video tasks in the sandbox)`,
    `duplicate review tasks: ${v.duplicateReviewTasks} (${v.reviewTasks} review tasks in the sandbox)`,
    `opted in:               ${v.jobs.optedIn} job(s) with resubmitOnAmbiguity; ${v.optedIn.resubmits} resubmit(s), extra tasks from them: video ${v.optedIn.videoTasks}, review ${v.optedIn.reviewTasks}`,
    `spec rule violations:   ${v.violations.length}${
      v.violations.length
        ? ` (${Object.entries(v.violationsByRule)
            .map(([k, n]) => `${k} ${n}`)
            .join(', ')})`
        : ''
    }`,
    `notifications:          ${notifyWords(r).outcome}; ${notifyWords(r).checks}; settled ${s(r.notifications.settleMs)} after the last job`,
    `duplicate notifications: ${notifyWords(r).duplicates}`,
    `secrets found:          ${r.secrets.hits.length} (scanned ${r.secrets.histories} histories of jobs and deliveries, ${r.secrets.logLines} log lines in ${r.secrets.logFiles} files, ${r.secrets.errors} errors, ${r.secrets.notifications} notifications, for 4 secrets and ${r.secrets.signedUrls ?? 0} signed callback URLs)`,
    `faults injected:        ${requestFaults} on ${f.totalRequests} requests, ${callbackFaults} on ${sum(f.callbackDeliveries)} callback deliveries, ${sum(r.notifications.faults)} on ${r.notifications.requests} notification deliveries`,
    `chaos:                  worker SIGKILLs ${c.workerKills} (${c.perWorker.map((w) => `${w.name} ${w.kills}`).join(', ')}), receiver restarts ${c.receiverRestarts}, Temporal server stop/start ${c.serverOutage ? `1 (down ${s(c.serverOutage.downMs)})` : '0'}`,
    `time:                   ${s(r.durationMs)} in all, jobs ${s(r.jobPhaseMs)}; job latency p50 ${s(r.latencyMs.p50)}, p95 ${s(r.latencyMs.p95)}, max ${s(r.latencyMs.max)}`,
    `slowest stages:         review ${s(v.slowestStages.reviewMs)}, generation ${s(v.slowestStages.generationMs)} (time-outs ${s(r.options.timing.reviewTimeoutMs)}, ${s(r.options.timing.generationTimeoutMs)})`,
  ];
}

/** One line of the seeds table: what a run of one seed came to. */
/** One seed's run: its report, or why it did not finish (the other seeds still run and are listed). */
export type SeedRun = { seed: number; report: SoakReport } | { seed: number; error: string };

/** A seed whose run did not finish: the row says why, the figures are blank. */
export function seedRowOf(run: SeedRun): Array<string | number> {
  if ('report' in run) return seedRow(run.report);
  return [
    run.seed,
    ...SEED_HEAD.slice(1, -1).map(() => '-'),
    `**run failed**: ${run.error.replace(/\|/g, '/').slice(0, 200)}`,
  ];
}

export function seedRow(r: SoakReport): Array<string | number> {
  const v = r.verdict;
  return [
    r.options.seed,
    v.jobs.planned,
    v.jobs.finished,
    v.jobs.unconfirmed,
    v.jobs.lost,
    v.duplicateVideoTasks,
    v.duplicateReviewTasks,
    `${v.optedIn.videoTasks} / ${v.optedIn.reviewTasks}`,
    v.violations.length,
    `${r.notifications.delivered} / ${r.notifications.expected} / ${r.notifications.lost} / ${r.notifications.duplicates}`,
    r.secrets.hits.length,
    `${r.chaos.workerKills} (${r.chaos.perWorker.map((w) => w.kills).join(' + ')})`,
    s(r.durationMs),
    r.ok ? 'OK' : '**FAILED**',
  ];
}

export const SEED_HEAD = [
  'seed',
  'jobs',
  'expected outcome',
  'unconfirmed (correct)',
  'lost',
  'duplicate video tasks',
  'duplicate review tasks',
  'opted-in extra tasks (video / review)',
  'violations',
  'notifications delivered / expected / lost / duplicates',
  'secrets',
  'worker SIGKILLs',
  'time',
  'verdict',
];

function table(head: string[], rows: Array<Array<string | number>>): string {
  return [
    `| ${head.join(' | ')} |`,
    `|${head.map(() => '---').join('|')}|`,
    ...rows.map((row) => `| ${row.join(' | ')} |`),
  ].join('\n');
}

const FAULT_WORDS: Record<string, string> = {
  'status:500': '500 before commit',
  'status:500:commit': '500 after commit',
  reset: 'connection reset before commit',
  'reset:commit': 'connection reset after commit',
  malformed: 'malformed JSON (nothing done)',
  'malformed:commit': 'malformed JSON after commit',
  'status:429': '429 with Retry-After',
  'status:503': '503 with Retry-After',
};

function faultWords(label: string): string {
  if (FAULT_WORDS[label]) return FAULT_WORDS[label];
  const hang = /^hang:(\d+)(:commit)?$/.exec(label);
  if (hang) return `no answer for ${hang[1]} ms (client time-out) ${hang[2] ? 'after' : 'before'} commit`;
  return label;
}

/**
 * RELIABILITY.md: the figures of `r` (the first seed's run) and, when more seeds were run in the same
 * invocation (`--seeds`), a table of every seed's figures.
 */
export function reliabilityMarkdown(r: SoakReport, command: string, others: SeedRun[] = []): string {
  const v = r.verdict;
  const o = r.options;
  const f = r.faults;
  const c = r.chaos;
  const order = ['review.submitAsync', 'review.submitSync', 'review.query', 'video.create', 'video.get'];
  const requestRows = Object.entries(f.requests)
    .sort(([a], [b]) => order.indexOf(a) - order.indexOf(b))
    .flatMap(([op, byFault]) =>
      Object.entries(byFault)
        .sort()
        .map(([label, n]) => [`\`${op}\``, faultWords(label), n] as Array<string | number>),
    );
  const callbackRows = Object.entries(f.callbacks).flatMap(([kind, byMode]) =>
    Object.entries(byMode)
      .sort()
      .map(([mode, n]) => [kind, mode, n] as Array<string | number>),
  );
  const problems = [...v.lost, ...v.duplicates, ...v.reviewDuplicates];
  const unconfirmedRows = Object.entries(v.unconfirmedByReason)
    .sort(([, a], [, b]) => b - a)
    .map(([reason, n]) => [reason, n] as Array<string | number>);
  return `# Reliability: the soak run

The promise of the package: **no job is lost, and no video task or review task is created twice, whatever
fails.** The soak run proves it under sustained faults, and anyone can repeat it:

\`\`\`
${command}
\`\`\`

This file is written by that command (bench/soak/report.ts): the figures of the first seed's run, then a
table of every seed run with it. \`npm test\` runs the quick soak (\`--quick\`, 100 jobs, a fixed seed) in
bench/test/soak.test.ts with the same checks.

## Result

| figure | value |
|---|---|
| jobs | ${v.jobs.planned} (${v.jobs.optedIn} of them opted in to \`resubmitOnAmbiguity\`) |
| jobs finished with the expected outcome | **${v.jobs.finished}** |
| jobs ended \`SubmitUnconfirmed\`, correctly (see below) | **${v.jobs.unconfirmed}** |
| jobs lost | **${v.jobs.lost}** (not finished ${v.jobs.notFinished}, wrong outcome ${v.jobs.wrongOutcome}) |
| duplicate video tasks | **${v.duplicateVideoTasks}** (${v.videoTasks} video tasks in the sandbox) |
| duplicate review tasks | **${v.duplicateReviewTasks}** (${v.reviewTasks} review tasks in the sandbox) |
| opted-in jobs: resubmits after an ambiguous answer, and the extra tasks they made (by the jobs' choice) | ${v.optedIn.resubmits} resubmit(s); extra tasks: video ${v.optedIn.videoTasks}, review ${v.optedIn.reviewTasks} |
| spec rule violations | **${v.violations.length}**${
    v.violations.length
      ? ` (${Object.entries(v.violationsByRule)
          .map(([k, n]) => `${k}: ${n}`)
          .join(', ')})`
      : ''
  } |
| notifications (\`notify\` on every job, to the soak's webhook receiver) | expected ${r.notifications.expected}, delivered **${r.notifications.delivered}** (distinct webhook-ids taken, signature verified), lost **${r.notifications.lost}**; wrong event or outcome **${r.notifications.wrongOutcome}**, bad signatures **${r.notifications.badSignatures}**, unexpected ids **${r.notifications.unexpected}**; all in ${s(r.notifications.settleMs)} after the last job |
| duplicate notifications received | ${notifyWords(r).duplicates} |
| secrets found | **${r.secrets.hits.length}** in ${r.secrets.histories} histories (jobs and notification deliveries), ${r.secrets.logLines} log lines (${r.secrets.logFiles} files), ${r.secrets.errors} errors, ${r.secrets.notifications} notifications (the 4 secrets, ${r.secrets.signedUrls ?? 0} signed callback URLs and their signatures) |
${
  r.videoQuota
    ? `| provider quota (\`--video-quota\`: the sandbox's real capacity, and the workers' VIDEO_MAX_TASKS_IN_FLIGHT) | ${r.videoQuota.limit} video tasks in flight: peak **${r.videoQuota.peakInFlight}**, creates admitted ${r.videoQuota.admitted}, refused (429) **${r.videoQuota.refused}** |\n`
    : ''
}${
    r.reviewQuota
      ? `| review quota (\`--review-quota\`: the sandbox's real capacity, and the workers' REVIEW_MAX_TASKS_IN_FLIGHT) | ${r.reviewQuota.limit} review tasks in flight: peak **${r.reviewQuota.peakInFlight}**, submits admitted ${r.reviewQuota.admitted}, refused (429) **${r.reviewQuota.refused}** |\n`
      : ''
  }${
    r.videoBudget
      ? `| daily budget (\`--video-budget-seconds\`: the workers' VIDEO_DAILY_SECONDS_BY_TENANT for tenant \`${r.videoBudget.tenant}\`) | ${r.videoBudget.seconds} s of video: the ${r.videoBudget.tasks} tasks made bill **${r.videoBudget.billedSeconds} s**; made without a duration (cost unknown) **${r.videoBudget.withoutDuration}** |\n`
      : ''
  }| time | ${s(r.durationMs)} in all; jobs ${s(r.jobPhaseMs)}; job latency p50 ${s(r.latencyMs.p50)}, p95 ${s(r.latencyMs.p95)}, max ${s(r.latencyMs.max)} |
| slowest stage of a job that ended as expected | review ${s(v.slowestStages.reviewMs)}, generation ${s(v.slowestStages.generationMs)} (the time-outs a \`SubmitUnconfirmed\` run waits out: ${s(o.timing.reviewTimeoutMs)}, ${s(o.timing.generationTimeoutMs)}) |

Outcomes: ${Object.entries(v.jobs.byOutcome)
    .map(([k, n]) => `${k} ${n}`)
    .join(', ')}.
${unconfirmedRows.length ? `\n\`SubmitUnconfirmed\` jobs, by stage and reason (each checked against the request and callback logs):\n\n${table(['stage: reason', 'jobs'], unconfirmedRows)}\n` : ''}${
    problems.length
      ? `\nJobs with a problem:\n\n${table(
          ['workflow', 'kind', 'callbacks', 'expected', 'got', 'detail'],
          problems.map((p) => [
            p.workflowId,
            p.kind,
            String(p.callbacks),
            p.expected,
            p.got,
            (p.detail ?? '').replace(/\|/g, '/'),
          ]),
        )}\n`
      : ''
  }
Run ${r.startedAt}, seed ${o.seed}, ${r.environment.cpus} CPU(s), Node ${r.environment.node}, ${r.environment.platform}, ${r.environment.temporalCli}.
${others.length ? `\n## Other seeds\n\nRun by the same command, one after the other, with the same options (${o.jobs} jobs each); the first row is the run above.\n\n${table(SEED_HEAD, [seedRow(r), ...others.map(seedRowOf)])}\n` : ''}
## What \`SubmitUnconfirmed\` means

A review submit (async or sync) or a video create that gets no clear answer (a 500, no answer before the
client's time-out, a connection reset, an unreadable 2xx, or a worker that died mid-call) may or may not
have made a task: the spec has no lookup by request, and says not to resubmit blindly ("duplicate submit
after a time-out" fails). So the run never sends it again by default. The worker sends its callback address
on every submit and create (polling jobs included), and a callback naming a task of the run, confirmed by
one query, is adopted. If none comes before the stage's time-out (\`reviewTimeoutMs\` for a review submit,
\`generationTimeoutMs\` for a create; ${o.timing.reviewTimeoutMs / 1000} s and ${o.timing.generationTimeoutMs / 1000} s here), the run fails with
\`SubmitUnconfirmed\` (details: stage, the URLs or the model, whether a callback address was sent, the last
error). It happens when the submit never reached the service (fault before commit), when the task's
callbacks never reached the run (dropped, receiver down, Temporal down), when the worker has no callback
address, and always after an ambiguous sync submit (it has no callback). The caller checks the service for
a task made from it before starting the job again, or starts jobs with \`resubmitOnAmbiguity: true\` (the
run then waits \`createAmbiguityGraceMs\` for a callback and resubmits, at most 3 ambiguous answers, and may
make a second task).

The soak counts a \`SubmitUnconfirmed\` job as correct only when the request log shows an ambiguous answer to
that job's submit or create (or its last error says the attempt was lost with its worker) and either no task
was made for it or no callback of that task was delivered before the run ended. Any other
\`SubmitUnconfirmed\`, say one whose task's callback was delivered while the run waited, is a lost job.

## What was done to it

**Faults injected into the services**, counted from the sandbox's request log (so each one was really
applied): ${f.faultedRequests} of ${f.totalRequests} requests.

${table(['operation', 'fault', 'count'], requestRows)}

**Callback faults** (the sandbox's callback log): ${Object.values(f.callbacks).reduce((a, x) => a + sum(x), 0)} faults on ${sum(f.callbackDeliveries)} deliveries
(delivered ${f.callbackDeliveries.delivered ?? 0}, refused ${f.callbackDeliveries.rejected ?? 0}, failed ${f.callbackDeliveries.error ?? 0} while the receiver or Temporal was down, dropped ${f.callbackDeliveries.dropped ?? 0}).

${table(['kind', 'fault', 'count'], callbackRows)}

**Webhook receiver faults** (its own log): ${notifyWords(r).faults}. \`fail:N\` answers N without taking
the notification; \`duplicate\` takes it and answers 500; \`delay\` holds the answer ${NOTIFY_DELAYS}: the
longer hold outlives the sender's deadline, so it is sent again though the receiver took it.

**Processes:**
- ${c.workers} worker processes on one task queue, each SIGKILLed after a random ${o.workerKillEveryMs[0] / 1000}-${o.workerKillEveryMs[1] / 1000} s of up-time on its own schedule and
  started again at once: ${c.workerKills} SIGKILLs (${c.perWorker.map((w) => `${w.name} ${w.kills}, ${w.starts} starts${w.unexpectedExits ? `, ${w.unexpectedExits} exits of its own` : ''}`).join('; ')});
- callback receiver restarted ${c.receiverRestarts} times (SIGKILL, or SIGTERM for a clean stop), each after a random ${o.receiverRestartEveryMs[0] / 1000}-${o.receiverRestartEveryMs[1] / 1000} s
  of up-time (${c.receiverStarts} starts${c.receiverUnexpectedExits ? `, ${c.receiverUnexpectedExits} exits of its own` : ''});
- Temporal dev server (\`temporal server start-dev --db-filename\`) stopped (SIGTERM) and started again on the same database ${c.serverOutage ? `once, after ${Math.ceil(o.jobs * o.serverStopAtShare)} starts: down ${s(c.serverOutage.downMs)}` : '— did not happen'}.
  Faults go on meanwhile: a task whose callbacks all come while it is down cannot be confirmed.

## How it is checked
- **Lost**: a job that did not end with its expected outcome within ${o.jobDeadlineMs / 1000} s of its start, or ended \`SubmitUnconfirmed\`
  without the evidence above. The mix: most jobs succeed (one image; two batches, image and video; sync review; no review); some must
  fail with \`ReviewRejected\` (an item rejected), \`ReviewFailed\`, \`ReviewCancelled\` or \`GenerationFailed\` (the sandbox's hint words).
  ~70 % use callbacks, ~30 % poll; ${Math.round(o.optInShare * 100)} % opt in to \`resubmitOnAmbiguity\`. A succeeded job's result must name its task, and
  the sandbox must have that task as succeeded.
- **Duplicate video tasks**: every job names itself in its prompt; video tasks in the sandbox are counted per job. Every task
  after a job's first is a duplicate, polling or not.
- **Duplicate review tasks**: every job names itself in its media URLs; review tasks are counted per job and batch (one media
  type each). Every task after a batch's first is a duplicate.
- **Opted-in jobs** are the one exception: a further task of a job started with \`resubmitOnAmbiguity: true\` is counted apart, as
  its choice, when its history shows an ambiguous answer and no callback of the earlier task had been delivered before the
  resubmit was sent; otherwise it is a duplicate too.
- **Spec rules**: \`auditRequestLog\` over the full request log (review queries closer than ${o.timing.reviewMinQueryIntervalMs} ms or before a
  Retry-After, mixed or missing auth headers, bad X-Track-Id, \`downstream_final_url\` used, a create with an asset not approved or
  under review, a query or resubmit after cancelled, a failed review query retried sooner than 1 s, 2 s, 4 s, a job's submit or
  create sent again after its task id came back or, by a job that did not opt in, after an ambiguous answer: a blind resubmit,
  even one that happened to make no second task), plus: no video task for a job whose review did not pass or was not
  confirmed. An answer the sandbox held back longer than the client's time-out (a hang fault) never reached the client, so the
  audit reads it as no answer. Several workers query the same tasks: the minimum interval must hold across them.
- **Notifications**: every job is started with \`notify\` (events \`succeeded\`, \`failed\`, \`cancelled\`) to a webhook receiver in the
  runner's process. After the last job, the run waits (up to ${s(o.notifySettleMs)}) for every job that ended to have its notification
  taken. Each request is verified with the package's \`verifyNotification\` and NOTIFY_SECRET, and read as a receiver that deduplicates by
  \`webhook-id\` would: **lost** is a job whose outcome's notification was never taken; **wrong** a notification whose id or body names
  another event, or whose failure type or task is not the job's; **unexpected** an id that is no job's, or a second id for one outcome.
  Any of these, or a bad signature, fails the run; copies of an id already taken are duplicates, allowed and counted.
- **Secrets**: the API key, the access token, the callback secret and the notification key are searched in every workflow history
  (payloads decoded; the jobs' and their notification deliveries'), every log line of the workers, receiver and Temporal processes,
  every error the runner saw, and every notification the webhook receiver got (headers and body).

Timings of the jobs: ${Object.entries(o.timing)
    .map(([k, val]) => `${k} ${val}`)
    .join(', ')}; HTTP time-out ${o.httpTimeoutMs} ms
(a hang of ${o.hangMs} ms becomes a client time-out); sandbox review ${o.sandbox.reviewDurationMs} ms, video ${o.sandbox.videoDurationMs} ms. Each worker is
\`npm run worker\`'s runWorker with the workflow code bundled once and at most 4 workflow tasks at a time (a fresh
worker replays every open workflow; on 2 cores the default 40 made tasks wait past their 10 s time-out).
Fault pressure: one armed fault per operation, re-armed after ${o.requestsBetweenFaults[0]}-${o.requestsBetweenFaults[1]} clean requests of it
(callbacks: ${o.callbacksBetweenFaults[0]}-${o.callbacksBetweenFaults[1]} deliveries per kind; notifications: ${o.notificationsBetweenFaults[0]}-${o.notificationsBetweenFaults[1]} deliveries). Faults that commit (the task is made, the answer lost) hit
every job, polling ones included: every create and async submit carries a callback address.
`;
}
