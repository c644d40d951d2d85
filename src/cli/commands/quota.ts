// `review-video quota [<gate>]`: the provider quotas the workers enforce (docs/operations.md, "Provider
// quotas"): each running admission gate's limits, its tasks in flight and who holds them, and its jobs
// waiting by priority and tenant, from the gate's `gateState` query.
import { gateStateQuery, type GateStateView } from '../../contract/admission.js';
import { ExitCode } from '../exit-codes.js';
import { parse } from '../io.js';
import type { Command } from './context.js';

export const QUOTA_HELP = `Usage: review-video quota [<gate workflow id>] [--json]

Shows every running provider quota (the workflows admission-<key>, e.g. admission-video@video.example.com),
or only the one named: its capacity (and the lower one a 429 taught it), tasks in flight, jobs waiting by
priority and tenant, the slots held, and each tenant's daily budget with what it spent today. Exit 4 when the named gate does not exist.

Options:
  --address, --namespace Temporal frontend and namespace
  --json                 print { gates: [gateState, ...] }
  -h, --help`;

/** How long each gate's query may take: it needs a worker of the gate's task queue. */
const QUERY_DEADLINE_MS = 5_000;

export const quota: Command = async (ctx) => {
  const { values, positionals } = parse(ctx.args, {}, 1);
  if (values.help) {
    ctx.out.help(QUOTA_HELP);
    return ExitCode.Ok;
  }
  const { client } = await ctx.connect(values);
  const ids: string[] = [];
  if (positionals[0]) {
    await client.workflow.getHandle(positionals[0]).describe(); // not found: exit 4
    ids.push(positionals[0]);
  } else {
    for await (const w of client.workflow.list({
      query: `WorkflowType = 'AdmissionGate' AND ExecutionStatus = 'Running'`,
    }))
      ids.push(w.workflowId);
  }
  const gates: GateStateView[] = [];
  for (const id of ids.sort()) {
    const view = await client
      .withDeadline(Date.now() + QUERY_DEADLINE_MS, () => client.workflow.getHandle(id).query(gateStateQuery))
      .catch(() => undefined);
    if (!view) {
      ctx.out.text(`${id}: no answer (is a worker of its task queue running?)`);
      continue;
    }
    gates.push(view);
    const lowered = view.effectiveCapacity < view.capacity ? ` (${view.effectiveCapacity} after a 429)` : '';
    const models = view.groups
      ? `; per model ${Object.entries(view.groups)
          .map(([m, n]) => `${m} ${n}`)
          .join(', ')}`
      : '';
    ctx.out.text(
      `${view.key}: ${view.inFlight} of ${view.capacity}${lowered} in flight${models}; ${view.waiting} waiting`,
    );
    for (const [priority, tenants] of Object.entries(view.waitingBy))
      ctx.out.text(
        `  waiting, priority ${priority}: ${Object.entries(tenants)
          .map(([t, n]) => `${t} ${n}`)
          .join(', ')}`,
      );
    for (const [tenant, budget] of Object.entries(view.budgets ?? {})) {
      const spent = view.spentToday?.[tenant] ?? { tasks: 0, seconds: 0 };
      const parts = [
        budget.tasks !== undefined ? `${spent.tasks} of ${budget.tasks} tasks` : undefined,
        budget.seconds !== undefined ? `${spent.seconds} of ${budget.seconds} s of video` : undefined,
      ];
      ctx.out.text(`  budget of ${tenant} today (UTC): ${parts.filter(Boolean).join(', ')}`);
    }
    for (const g of view.granted)
      ctx.out.text(
        `  held by ${g.workflowId} (${g.fairnessKey}${g.group ? `, ${g.group}` : ''}) since ${new Date(g.grantedAt).toISOString()}`,
      );
  }
  if (ids.length === 0)
    ctx.out.text('no provider quota is running (no worker has VIDEO_MAX_TASKS_IN_FLIGHT set, or no job asked yet)');
  ctx.out.result({ gates });
  return ExitCode.Ok;
};
