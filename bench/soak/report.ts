// The soak's figures, as printed lines and as RELIABILITY.md (the record of the last full run).
import type { SoakReport } from './soak.js';

const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const sum = (o: Record<string, number>) => Object.values(o).reduce((a, b) => a + b, 0);

export function figures(r: SoakReport): string[] {
  const v = r.verdict;
  const f = r.faults;
  const c = r.chaos;
  const requestFaults = Object.values(f.requests).reduce((a, o) => a + sum(o), 0);
  const callbackFaults = Object.values(f.callbacks).reduce((a, o) => a + sum(o), 0);
  return [
    `jobs finished:          ${v.jobs.finished} of ${v.jobs.planned} (${Object.entries(v.jobs.byOutcome).map(([k, n]) => `${k} ${n}`).join(', ')})`,
    `jobs lost:              ${v.jobs.lost} (not finished ${v.jobs.notFinished}, wrong outcome ${v.jobs.wrongOutcome})`,
    `duplicate tasks:        ${v.duplicateTasks} (${v.videoTasks} video tasks in the sandbox)`,
    `ambiguous resubmits:    ${v.ambiguousResubmits.polling + v.ambiguousResubmits.callbacksLost} (no task id obtainable, by design: polling ${v.ambiguousResubmits.polling}, every callback lost ${v.ambiguousResubmits.callbacksLost})`,
    `spec rule violations:   ${v.violations.length}${v.violations.length ? ` (${Object.entries(v.violationsByRule).map(([k, n]) => `${k} ${n}`).join(', ')})` : ''}`,
    `secrets found:          ${r.secrets.hits.length} (scanned ${r.secrets.histories} histories, ${r.secrets.logLines} log lines in ${r.secrets.logFiles} files, ${r.secrets.errors} errors)`,
    `faults injected:        ${requestFaults} on ${f.totalRequests} requests, ${callbackFaults} on ${sum(f.callbackDeliveries)} callback deliveries`,
    `chaos:                  worker SIGKILLs ${c.workerKills}, receiver restarts ${c.receiverRestarts}, Temporal server stop/start ${c.serverOutage ? `1 (down ${s(c.serverOutage.downMs)})` : '0'}`,
    `extra review tasks:     ${v.extraReviewTasks} (an ambiguous review submit is retried)`,
    `time:                   ${s(r.durationMs)} in all, jobs ${s(r.jobPhaseMs)}; job latency p50 ${s(r.latencyMs.p50)}, p95 ${s(r.latencyMs.p95)}, max ${s(r.latencyMs.max)}`,
  ];
}

function table(head: string[], rows: Array<Array<string | number>>): string {
  return [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((row) => `| ${row.join(' | ')} |`)].join('\n');
}

const FAULT_WORDS: Record<string, string> = {
  'status:500': '500 before commit',
  'status:500:commit': '500 after commit',
  'reset': 'connection reset before commit',
  'reset:commit': 'connection reset after commit',
  'malformed': 'malformed JSON (nothing done)',
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

export function reliabilityMarkdown(r: SoakReport, command: string): string {
  const v = r.verdict;
  const o = r.options;
  const f = r.faults;
  const c = r.chaos;
  const order = ['review.submitAsync', 'review.submitSync', 'review.query', 'video.create', 'video.get'];
  const requestRows = Object.entries(f.requests).sort(([a], [b]) => order.indexOf(a) - order.indexOf(b)).flatMap(([op, byFault]) =>
    Object.entries(byFault).sort().map(([label, n]) => [`\`${op}\``, faultWords(label), n] as Array<string | number>),
  );
  const callbackRows = Object.entries(f.callbacks).flatMap(([kind, byMode]) => Object.entries(byMode).sort().map(([mode, n]) => [kind, mode, n] as Array<string | number>));
  const problems = [...v.lost, ...v.duplicates, ...v.ambiguous];
  return `# Reliability: the soak run

The promise of the package: **no job is lost and no video task is created twice, whatever fails.** The
soak run proves it under sustained faults, and anyone can repeat it:

\`\`\`
${command}
\`\`\`

This file holds the figures of the last full run (written by the command above). \`npm test\` runs the
quick soak (\`--quick\`, 100 jobs) in test/soak/soak.test.ts with the same assertions.

## Result

| figure | value |
|---|---|
| jobs | ${v.jobs.planned} |
| jobs finished with the expected outcome | **${v.jobs.finished}** |
| jobs lost | **${v.jobs.lost}** (not finished ${v.jobs.notFinished}, wrong outcome ${v.jobs.wrongOutcome}) |
| duplicate video tasks | **${v.duplicateTasks}** (${v.videoTasks} video tasks in the sandbox) |
| ambiguous resubmits, no task id obtainable (by design, see Limits) | ${v.ambiguousResubmits.polling + v.ambiguousResubmits.callbacksLost} (polling jobs ${v.ambiguousResubmits.polling}; callback jobs whose every callback was lost ${v.ambiguousResubmits.callbacksLost}) |
| spec rule violations | **${v.violations.length}**${v.violations.length ? ` (${Object.entries(v.violationsByRule).map(([k, n]) => `${k}: ${n}`).join(', ')})` : ''} |
| secrets found | **${r.secrets.hits.length}** in ${r.secrets.histories} histories, ${r.secrets.logLines} log lines (${r.secrets.logFiles} files), ${r.secrets.errors} errors |
| time | ${s(r.durationMs)} in all; jobs ${s(r.jobPhaseMs)}; job latency p50 ${s(r.latencyMs.p50)}, p95 ${s(r.latencyMs.p95)}, max ${s(r.latencyMs.max)} |

Outcomes: ${Object.entries(v.jobs.byOutcome).map(([k, n]) => `${k} ${n}`).join(', ')}.
${problems.length ? `\nJobs with a problem:\n\n${table(['workflow', 'kind', 'callbacks', 'expected', 'got', 'detail'], problems.map((p) => [p.workflowId, p.kind, String(p.callbacks), p.expected, p.got, p.detail ?? '']))}\n` : ''}
Run ${r.startedAt}, seed ${o.seed}, ${r.environment.cpus} CPU(s), Node ${r.environment.node}, ${r.environment.platform}, ${r.environment.temporalCli}.

## What was done to it

**Faults injected into the services**, counted from the sandbox's request log (so each one was really
applied): ${f.faultedRequests} of ${f.totalRequests} requests.

${table(['operation', 'fault', 'count'], requestRows)}

**Callback faults** (the sandbox's callback log): ${Object.values(f.callbacks).reduce((a, x) => a + sum(x), 0)} faults on ${sum(f.callbackDeliveries)} deliveries
(delivered ${f.callbackDeliveries.delivered ?? 0}, refused ${f.callbackDeliveries.rejected ?? 0}, failed ${f.callbackDeliveries.error ?? 0} while the receiver or Temporal was down, dropped ${f.callbackDeliveries.dropped ?? 0}).

${table(['kind', 'fault', 'count'], callbackRows)}

**Processes:**
- worker process SIGKILLed ${c.workerKills} times, each after a random ${o.workerKillEveryMs[0] / 1000}-${o.workerKillEveryMs[1] / 1000} s of up-time, and started again at once
  on the same task queue (${c.workerStarts} starts${c.workerUnexpectedExits ? `, ${c.workerUnexpectedExits} exits of its own, e.g. Temporal unreachable at start` : ''});
- callback receiver restarted ${c.receiverRestarts} times (SIGKILL, or SIGTERM for a clean stop), each after a random ${o.receiverRestartEveryMs[0] / 1000}-${o.receiverRestartEveryMs[1] / 1000} s
  of up-time (${c.receiverStarts} starts${c.receiverUnexpectedExits ? `, ${c.receiverUnexpectedExits} exits of its own` : ''});
- Temporal dev server (\`temporal server start-dev --db-filename\`) stopped (SIGTERM) and started again on the same database ${c.serverOutage ? `once, after ${Math.ceil(o.jobs * o.serverStopAtShare)} starts: down ${s(c.serverOutage.downMs)}` : '— did not happen'}.

## How it is checked
- **Lost**: a job that did not end with its expected outcome within ${o.jobDeadlineMs / 1000} s of its start. The mix: most jobs succeed
  (one image; two batches, image and video; sync review; no review); some must fail with \`ReviewRejected\` (an item rejected),
  \`ReviewFailed\`, \`ReviewCancelled\` or \`GenerationFailed\` (the sandbox's hint words). ~70 % use callbacks, ~30 % poll.
  A succeeded job's result must name its task, and the sandbox must have that task as succeeded.
- **Duplicate tasks**: every job names itself in its prompt; video tasks in the sandbox are counted per job. More than one is a duplicate.
- **Spec rules**: \`auditRequestLog\` over the full request log (review queries closer than ${o.timing.reviewMinQueryIntervalMs} ms or before a
  Retry-After, mixed or missing auth headers, bad X-Track-Id, \`downstream_final_url\` used, a create with an asset not approved or
  under review, a query or resubmit after cancelled), plus: no video task for a job whose review did not pass. An
  answer the sandbox held back longer than the client's time-out (a hang fault) never reached the client, so the
  audit reads it as no answer.
- **Secrets**: the API key, the access token and the callback secret are searched in every workflow history (payloads decoded),
  every log line of the worker, receiver and Temporal processes, and every error the runner saw.

Timings of the jobs: ${Object.entries(o.timing).map(([k, val]) => `${k} ${val}`).join(', ')}; HTTP time-out ${o.httpTimeoutMs} ms
(a hang of ${o.hangMs} ms becomes a client time-out); sandbox review ${o.sandbox.reviewDurationMs} ms, video ${o.sandbox.videoDurationMs} ms. The worker is
\`npm run worker\`'s runWorker with the workflow code bundled once and at most 4 workflow tasks at a time (a fresh
worker replays every open workflow; on 2 cores the default 40 made tasks wait past their 10 s time-out).
Fault pressure: one armed fault per operation, re-armed after ${o.requestsBetweenFaults[0]}-${o.requestsBetweenFaults[1]} clean requests of it
(callbacks: ${o.callbacksBetweenFaults[0]}-${o.callbacksBetweenFaults[1]} deliveries per kind).

## Limits, stated plainly
The design keeps the promise "no task twice" exactly as far as the spec allows: after a create whose answer
is lost (500, time-out, reset or malformed body after the task was made), the task id can only come from a
video callback (the spec has no lookup by request), and the spec says "resubmit only when none was
obtained". So two cases make a second task **by design**, and the soak counts them apart from duplicates,
with evidence, instead of hiding them:
- **Polling jobs** (no callback_url) never learn the id. The soak injects create faults that commit only on
  callback jobs (matched by model), so polling jobs meet this only when the worker is SIGKILLed during the
  create call itself: ${v.ambiguousResubmits.polling} in this run.
- **Callback jobs whose task's callbacks all failed to arrive** before the resubmit (dropped, receiver
  restarting, Temporal down): ${v.ambiguousResubmits.callbacksLost} in this run. Counted so only when the sandbox's callback log shows
  that no callback of the first task was delivered before the second create; otherwise it is a duplicate.
  Around the Temporal outage (when no callback can be signalled at all) committing create faults are held
  back from ${(o.sandbox.videoDurationMs + 2_000) / 1000} s before it until ${(o.timing.createAmbiguityGraceMs + 5_000) / 1000} s after it.

A **duplicate** is any other second task: one made although the job had, or could have had, the first
task's id (an id recorded and lost, a callback delivered and ignored, a retry without ambiguity).

**Review submits are not deduplicated**: an ambiguous review submit is retried, so a review task can exist
twice (${v.extraReviewTasks} extra review tasks in this run). Only one is used; the spec's duplicate rule is about video tasks.
`;
}
