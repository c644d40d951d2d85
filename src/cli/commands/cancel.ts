// `review-video cancel <id>`: requests cancellation of a job (which cancels its video task) or of a batch
// (which cancels its running jobs); a run already closed is reported, not an error.
import { ExitCode } from '../exit-codes.js';
import { parse, usage } from '../io.js';
import type { Command } from './context.js';

export const CANCEL_HELP = `Usage: review-video cancel <business-key | batch-id> [--wait] [--json]

Requests cancellation. A job cancels its video task if one exists; a batch cancels its running jobs and
starts no more. A run that is already closed is left as it is (exit 0, "already closed").
Exit 4 when no such workflow exists.

Options:
  --wait                 wait until the run has closed and print its final status
  --address, --namespace Temporal frontend and namespace
  --json                 print { workflowId, cancelRequested, status }
  -h, --help`;

export const cancel: Command = async (ctx) => {
  const { values, positionals } = parse(ctx.args, { wait: { type: 'boolean', default: false } }, 1);
  if (values.help) {
    ctx.out.help(CANCEL_HELP);
    return ExitCode.Ok;
  }
  const id = positionals[0];
  if (!id) throw usage('give the workflow id (business key or batch id)');
  const { client } = await ctx.connect(values);
  const handle = client.workflow.getHandle(id);
  const before = await handle.describe();
  if (before.status.name !== 'RUNNING') {
    ctx.out.text(`${id}: already closed (${before.status.name}); nothing to cancel`);
    ctx.out.result({ workflowId: id, cancelRequested: false, status: before.status.name });
    return ExitCode.Ok;
  }
  await handle.cancel();
  let statusName: string = 'RUNNING';
  if (values.wait) {
    await handle.result().catch(() => undefined);
    statusName = (await handle.describe()).status.name;
  }
  ctx.out.text(`${id}: cancellation requested${values.wait ? `; now ${statusName}` : ''}`);
  ctx.out.result({ workflowId: id, cancelRequested: true, status: statusName });
  return ExitCode.Ok;
};
