// `review-video status <id>`: what a job or batch is and where it stands (summary, details, stage, search
// attributes, progress), the same facts the Web UI shows.
import type { Client } from '@temporalio/client';
import { describeRun } from '../../client/describe.js';
import { admissionGateId, slotPositionQuery } from '../../contract/admission.js';
import { BATCH_WORKFLOW_TYPE, batchProgressQuery, type BatchProgress } from '../../job/batch-input.js';
import { progressQuery, type Progress, type ReviewThenGenerateResult } from '../../job/definitions.js';
import { ExitCode } from '../exit-codes.js';
import { parse, plainMarkdown, usage } from '../io.js';
import { progressText } from '../progress.js';
import { whereTheVideoIs } from '../result-text.js';
import type { Command } from './context.js';

export const STATUS_HELP = `Usage: review-video status <business-key | batch-id> [--json]

Shows the run's status, static summary and details, its stage (one line), current details, search
attributes and progress; a finished job, its video's address and stored copy; a job waiting for the
provider's quota, its place in line. Exit 4 when no such workflow exists.

Options:
  --address, --namespace Temporal frontend and namespace
  --json                 print one JSON document (describe + progress, and a finished job's result)
  -h, --help`;

/** How long `status` waits for the progress query before printing without it. */
const PROGRESS_QUERY_DEADLINE_MS = 5_000;

export const status: Command = async (ctx) => {
  const { values, positionals } = parse(ctx.args, {}, 1);
  if (values.help) {
    ctx.out.help(STATUS_HELP);
    return ExitCode.Ok;
  }
  const id = positionals[0];
  if (!id) throw usage('give the workflow id (business key or batch id)');
  const { client } = await ctx.connect(values);
  const d = await describeRun(client, id);
  const handle = client.workflow.getHandle(id);
  // A query needs a worker of the run's task queue; without one it would wait for the server's time-out.
  const progress = await client
    .withDeadline<Progress | BatchProgress>(Date.now() + PROGRESS_QUERY_DEADLINE_MS, () =>
      d.type === BATCH_WORKFLOW_TYPE ? handle.query(batchProgressQuery) : handle.query(progressQuery),
    )
    .catch(() => undefined);
  const quotaPosition = await positionInLine(client, progress);
  // A finished job's result says where its video is; a closed run answers at once.
  const result =
    d.type === 'ReviewThenGenerate' && d.status === 'COMPLETED'
      ? await (handle.result() as Promise<ReviewThenGenerateResult>).catch(() => undefined)
      : undefined;
  ctx.out.result({
    ...d,
    progress,
    ...(quotaPosition !== undefined ? { quotaPosition } : {}),
    ...(result ? { result } : {}),
  });
  ctx.out.text(`${d.workflowId}  ${d.type}  ${d.status}  (run ${d.runId}, ${d.historyLength} events)`);
  if (d.staticSummary) ctx.out.text(`summary: ${d.staticSummary}`);
  const sa = d.searchAttributes;
  const facts = [
    stageFact(d.status, progress, sa.ReviewStage),
    sa.VideoModel && `model: ${sa.VideoModel}`,
    sa.ReviewTaskIds?.length && `review tasks: ${sa.ReviewTaskIds.join(', ')}`,
    sa.VideoTaskId && `video task: ${sa.VideoTaskId}`,
    sa.BatchId && `batch: ${sa.BatchId}`,
  ].filter(Boolean);
  if (facts.length > 0) ctx.out.text(facts.join('  '));
  // The stage is printed once, above: the current details' own stage line would repeat it.
  for (const line of plainMarkdown(d.currentDetails).filter((l) => !l.startsWith('Stage:'))) ctx.out.text(`  ${line}`);
  if (result) for (const line of whereTheVideoIs(result)) ctx.out.text(line);
  if (progress && 'batchId' in progress) ctx.out.text(`progress: ${progressText(progress)}`);
  if (progress && 'admission' in progress && progress.admission && quotaPosition !== undefined)
    ctx.out.text(
      `waiting for a slot of ${progress.admission.quotaKey}: ${quotaPosition} job(s) ahead, since ${new Date(progress.admission.waitingSince).toISOString()}`,
    );
  return ExitCode.Ok;
};

/**
 * The one stage line: the run's own answer (`progress`) when a worker gave it; else the index, which keeps
 * the last working stage a closed run reached (its outcome is the status printed above it).
 */
function stageFact(
  status: string,
  progress: Progress | BatchProgress | undefined,
  indexed: string | undefined,
): string | undefined {
  if (progress && 'stage' in progress) return `stage: ${progress.stage}`;
  if (!indexed) return undefined;
  return status === 'RUNNING' ? `stage: ${indexed}` : `last working stage: ${indexed}`;
}

/** A job waiting for the provider's quota: how many jobs the gate would admit before it (its `slotPosition`). */
async function positionInLine(
  client: Client,
  progress: Progress | BatchProgress | undefined,
): Promise<number | undefined> {
  if (!progress || !('admission' in progress) || progress.stage !== 'waiting_for_quota' || !progress.admission)
    return undefined;
  const { quotaKey, requestId } = progress.admission;
  const position = await client
    .withDeadline(Date.now() + PROGRESS_QUERY_DEADLINE_MS, () =>
      client.workflow.getHandle(admissionGateId(quotaKey)).query(slotPositionQuery, requestId),
    )
    .catch(() => undefined);
  return position !== undefined && position >= 0 ? position : undefined;
}
