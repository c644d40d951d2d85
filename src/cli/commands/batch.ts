// `review-video batch`: starts a ReviewThenGenerateBatch and follows it (a bar on a terminal, plain lines
// otherwise, both on stderr), then prints the summary; exit 1 when any job did not succeed.
import { randomBytes } from 'node:crypto';
import { DEFAULT_TASK_QUEUE } from '../../config/temporal.js';
import { startReviewThenGenerateBatch } from '../../client/batch.js';
import type { BatchSummary } from '../../job/batch-input.js';
import { ExitCode } from '../exit-codes.js';
import { parse, positiveInt } from '../io.js';
import { progressReporter } from '../progress.js';
import { BATCH_SOURCE_HELP, BATCH_SOURCE_OPTIONS, batchInputFrom } from './batch-source.js';
import type { Command } from './context.js';

export const BATCH_HELP = `Usage: review-video batch (--file <jobs.jsonl> | --jobs <json> | --jobs-file <path|->) [options]

Starts a ReviewThenGenerateBatch: every job runs as a child workflow (id <batch-id>/<index>, or the job's
"key"), at most --concurrency at a time. Shows progress until the batch finishes (a bar on a terminal,
plain lines otherwise, on stderr), then prints the summary on stdout. Exit 1 when a job did not succeed,
3 when the batch or an inline job is invalid (nothing started).

Options:
${BATCH_SOURCE_HELP}
  --id <batch-id>        the batch's workflow id (default batch-<time>-<random>); a repeated start returns it
  --task-queue <queue>   default: TEMPORAL_TASK_QUEUE, else ${DEFAULT_TASK_QUEUE}
  --detach               start and return at once (print the batch id)
  --poll-ms <n>          progress refresh interval (default 1000)
  --address, --namespace Temporal frontend and namespace
  --json                 print one JSON document: the batch summary (or { batchId, existing } with --detach)
  -h, --help`;

function defaultBatchId(): string {
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\..*$/, '');
  return `batch-${stamp}-${randomBytes(3).toString('hex')}`;
}

function summaryLines(s: BatchSummary): string[] {
  const c = s.counts;
  const lines = [
    `batch ${s.batchId}: ${s.total} jobs: ${c.succeeded} succeeded, ${c.failed} failed, ${c.cancelled} cancelled, ${c.duplicate} duplicate, ${c.invalid} invalid`,
    `runs: ${s.runs.map((r) => `${r.jobs} jobs/${r.historyLength} events`).join(', ')}`,
  ];
  const bad = s.outcomes.filter((o) => o.status !== 'succeeded');
  for (const o of bad.slice(0, 20))
    lines.push(`  job ${o.index}${o.line !== undefined ? ` (line ${o.line})` : ''} ${o.status}: ${o.error ?? ''}`);
  if (bad.length > 20) lines.push(`  … ${bad.length - 20} more (see --json, or BatchId="${s.batchId}" in the Web UI)`);
  return lines;
}

export const batch: Command = async (ctx) => {
  const { values } = parse(ctx.args, {
    ...BATCH_SOURCE_OPTIONS,
    id: { type: 'string' },
    'task-queue': { type: 'string' },
    detach: { type: 'boolean', default: false },
    'poll-ms': { type: 'string' },
  });
  if (values.help) {
    ctx.out.help(BATCH_HELP);
    return ExitCode.Ok;
  }
  const input = batchInputFrom(values);
  const pollMs = positiveInt('poll-ms', values['poll-ms']) ?? 1_000;
  const { client, taskQueue } = await ctx.connect(values);
  const handle = await startReviewThenGenerateBatch(client, {
    batchId: values.id ?? defaultBatchId(),
    batch: input,
    taskQueue: values['task-queue'] ?? taskQueue,
  });
  ctx.out.note(`${handle.workflowId}: ${handle.existing ? 'already started; following that batch' : 'started'}`);
  if (values.detach) {
    ctx.out.text(handle.workflowId);
    ctx.out.result({ batchId: handle.workflowId, existing: handle.existing });
    return ExitCode.Ok;
  }
  const reporter = progressReporter();
  let done = false;
  const watching = (async () => {
    while (!done) {
      const p = await handle.progress().catch(() => undefined);
      if (p && !done) reporter.update(p);
      await new Promise((r) => setTimeout(r, pollMs));
    }
  })();
  const outcome = await handle.result().then(
    (summary) => ({ summary }),
    (error: unknown) => ({ error }),
  );
  done = true;
  await watching;
  if ('error' in outcome) {
    reporter.end();
    throw outcome.error;
  }
  const { summary } = outcome;
  // The last picture: 100 % (a completed workflow still answers queries).
  const final = await handle.progress().catch(() => undefined);
  if (final) reporter.update(final);
  reporter.end();
  for (const line of summaryLines(summary)) ctx.out.text(line);
  ctx.out.result(summary);
  return summary.counts.succeeded === summary.total ? ExitCode.Ok : ExitCode.Failed;
};
