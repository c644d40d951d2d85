// `review-video submit`: validates and starts one job under a business key (a repeated submit returns the
// existing run), optionally waiting for its result.
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { DEFAULT_TASK_QUEUE } from '../../config/temporal.js';
import { startReviewThenGenerate } from '../../client/start.js';
import type { ReviewThenGenerateInput } from '../../job/input.js';
import { ExitCode } from '../exit-codes.js';
import { parse, readJson, usage } from '../io.js';
import { whereTheVideoIs } from '../result-text.js';
import type { Command } from './context.js';

export const SUBMIT_HELP = `Usage: review-video submit --key <business-key> (--input <json> | --input-file <path|->) [options]

Validates the job input (the design's ReviewThenGenerate JSON) and starts it with the business key as the
workflow id. A repeated submit with the same key and input returns the existing run (exit 0, "existing");
the same key with a different input is a conflict (exit 5). Invalid input starts nothing (exit 3).

Options:
  --key <key>            business key: the workflow id (printable, no spaces, at most 200 characters)
  --input <json>         the job input as JSON text
  --input-file <path>    read the job input from a file, or - for standard input
  --task-queue <queue>   default: TEMPORAL_TASK_QUEUE, else ${DEFAULT_TASK_QUEUE}
  --retry-failed         start again when the key's previous run failed, was cancelled or timed out
  --wait                 wait for the result (exit 1 when the job did not succeed)
  --address, --namespace Temporal frontend and namespace (default: TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE)
  --json                 print one JSON document: { workflowId, runId, existing, result? , failure? }
  -h, --help`;

export function failureOf(err: unknown): { type: string | undefined; message: string } {
  const cause = err instanceof WorkflowFailedError ? err.cause : err;
  return {
    type: cause instanceof ApplicationFailure ? (cause.type ?? undefined) : cause?.constructor?.name,
    message: cause instanceof Error ? cause.message : String(cause),
  };
}

export const submit: Command = async (ctx) => {
  const { values } = parse(ctx.args, {
    key: { type: 'string' },
    input: { type: 'string' },
    'input-file': { type: 'string' },
    'task-queue': { type: 'string' },
    'retry-failed': { type: 'boolean', default: false },
    wait: { type: 'boolean', default: false },
  });
  if (values.help) {
    ctx.out.help(SUBMIT_HELP);
    return ExitCode.Ok;
  }
  if (!values.key) throw usage('--key is required (the business key)');
  const input = readJson('input', values.input, values['input-file']) as ReviewThenGenerateInput;
  const { client, taskQueue } = await ctx.connect(values);
  const job = await startReviewThenGenerate(client, {
    businessKey: values.key,
    input,
    taskQueue: values['task-queue'] ?? taskQueue,
    retryFailed: values['retry-failed'],
  });
  const started = { workflowId: job.workflowId, runId: job.runId, existing: job.existing };
  ctx.out.text(
    job.existing
      ? `${job.workflowId}: already started (run ${job.runId}); returning that run, nothing new started`
      : `${job.workflowId}: started (run ${job.runId})`,
  );
  if (!values.wait) {
    ctx.out.result(started);
    return ExitCode.Ok;
  }
  try {
    const result = await job.result();
    ctx.out.text(`${job.workflowId}: succeeded`);
    for (const line of whereTheVideoIs(result)) ctx.out.text(`${job.workflowId}: ${line}`);
    ctx.out.result({ ...started, status: 'succeeded', result });
    return ExitCode.Ok;
  } catch (err) {
    if (!(err instanceof WorkflowFailedError)) throw err;
    const failure = failureOf(err);
    ctx.out.text(`${job.workflowId}: did not succeed: ${failure.type ? `${failure.type}: ` : ''}${failure.message}`);
    ctx.out.result({ ...started, status: 'failed', failure });
    return ExitCode.Failed;
  }
};
