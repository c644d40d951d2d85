// `review-video schedule create|list|delete`: batches started by a Temporal Schedule on a cron expression
// or an interval; a firing while the previous batch still runs is skipped (never two at once).
import { DEFAULT_TASK_QUEUE } from '../../config/temporal.js';
import { createBatchSchedule, deleteBatchSchedule, listBatchSchedules } from '../../client/schedule.js';
import { ExitCode } from '../exit-codes.js';
import { parse, usage } from '../io.js';
import { BATCH_SOURCE_HELP, BATCH_SOURCE_OPTIONS, batchInputFrom } from './batch-source.js';
import type { Command, CommandContext } from './context.js';

export const SCHEDULE_HELP = `Usage: review-video schedule create --id <schedule-id> (--cron <expr> | --every <duration>) (--file ... | --jobs ...) [options]
       review-video schedule list [--json]
       review-video schedule delete <schedule-id> [--json]

A Temporal Schedule that starts a ReviewThenGenerateBatch (workflow id batch-<schedule-id>-<time>).
Overlap policy SKIP: while a batch of the schedule runs, due firings are skipped, never run beside it.

create options:
  --id <schedule-id>     the schedule's id
  --cron <expr>          cron expression in UTC, e.g. "0 3 * * *" (repeatable)
  --every <duration>     interval, e.g. 30s, 15m, 1h
${BATCH_SOURCE_HELP}
  --task-queue <queue>   default: TEMPORAL_TASK_QUEUE, else ${DEFAULT_TASK_QUEUE}
  --note <text>          shown with the schedule
  --paused               create it paused
common:
  --address, --namespace Temporal frontend and namespace
  --json                 print one JSON document
  -h, --help`;

async function create(ctx: CommandContext, args: string[]): Promise<number> {
  const { values } = parse(args, {
    ...BATCH_SOURCE_OPTIONS,
    id: { type: 'string' },
    cron: { type: 'string', multiple: true },
    every: { type: 'string' },
    'task-queue': { type: 'string' },
    note: { type: 'string' },
    paused: { type: 'boolean', default: false },
  });
  if (values.help) {
    ctx.out.help(SCHEDULE_HELP);
    return ExitCode.Ok;
  }
  if (!values.id) throw usage('--id is required');
  if (!values.cron && !values.every) throw usage('give --cron or --every');
  const batch = batchInputFrom(values);
  const { client, taskQueue } = await ctx.connect(values);
  await createBatchSchedule(client, {
    scheduleId: values.id,
    ...(values.cron ? { cron: values.cron } : {}),
    ...(values.every ? { every: values.every } : {}),
    batch,
    taskQueue: values['task-queue'] ?? taskQueue,
    ...(values.note ? { note: values.note } : {}),
    paused: values.paused,
  });
  ctx.out.text(
    `schedule ${values.id} created${values.paused ? ' (paused)' : ''}: ${values.cron ? `cron ${values.cron.join(', ')}` : `every ${values.every}`}, overlap SKIP`,
  );
  ctx.out.result({ scheduleId: values.id, created: true });
  return ExitCode.Ok;
}

async function list(ctx: CommandContext, args: string[]): Promise<number> {
  const { values } = parse(args, {});
  if (values.help) {
    ctx.out.help(SCHEDULE_HELP);
    return ExitCode.Ok;
  }
  const { client } = await ctx.connect(values);
  const schedules = await listBatchSchedules(client);
  ctx.out.result(schedules);
  if (schedules.length === 0) ctx.out.text('no batch schedules');
  for (const s of schedules) {
    const when = [...s.cron.map((c) => `cron ${c}`), ...s.everyMs.map((ms) => `every ${ms / 1000}s`)].join(', ');
    const last = s.recentBatches.at(-1);
    ctx.out.text(
      `${s.scheduleId}  ${when}${s.paused ? '  (paused)' : ''}  next ${s.nextRuns[0] ?? '-'}  last ${last?.workflowId ?? '-'}`,
    );
  }
  return ExitCode.Ok;
}

async function remove(ctx: CommandContext, args: string[]): Promise<number> {
  const { values, positionals } = parse(args, { id: { type: 'string' } }, 1);
  if (values.help) {
    ctx.out.help(SCHEDULE_HELP);
    return ExitCode.Ok;
  }
  const id = values.id ?? positionals[0];
  if (!id) throw usage('give the schedule id');
  const { client } = await ctx.connect(values);
  await deleteBatchSchedule(client, id);
  ctx.out.text(`schedule ${id} deleted (batches it started are not affected)`);
  ctx.out.result({ scheduleId: id, deleted: true });
  return ExitCode.Ok;
}

export const schedule: Command = async (ctx) => {
  const [sub, ...rest] = ctx.args;
  if (sub === 'create') return create(ctx, rest);
  if (sub === 'list') return list(ctx, rest);
  if (sub === 'delete') return remove(ctx, rest);
  if (sub === undefined || sub === '--help' || sub === '-h') {
    ctx.out.help(SCHEDULE_HELP);
    return sub === undefined ? ExitCode.Usage : ExitCode.Ok;
  }
  throw usage(`unknown schedule command ${sub} (create, list, delete)`);
};
