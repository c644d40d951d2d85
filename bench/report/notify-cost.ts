// What a notification (issue 27, docs/webhooks.md) adds to a job, for BENCHMARKS.md. Not from the run's
// results: `npm run bench` starts no job with `notify`, and the figures do not depend on load (they are
// commands in a history). A fixed section, so that regenerating BENCHMARKS.md keeps it; the figures are
// counted from history by the test it cites, with the benchmark's own counter (test/support/history-cost.ts).

const TEST = '`test/workflows/notify.test.ts`';
const TEST_NAME = 'costs a job one activity and one child start; the delivery, a start and one attempt per try';

export function notifyCostSection(): string {
  return `A job started with \`notify\` ([docs/webhooks.md](docs/webhooks.md#what-it-costs)) pays for its notification in
two histories: its own, and that of the delivery workflow (\`ReviewThenGenerateNotification\`, one per
notification) that it starts and leaves running. Counted from history as Temporal Cloud bills them:

| | Billable actions | History events |
|---|---:|---:|
| The job: one activity at its start (the check of its needs, which also says where notifications go; a job with \`store\` asks it anyway) and one child workflow start | +2 | +11 |
| Each notification's delivery workflow, delivered at the first attempt: its start and one activity attempt | 2 | 11 |
| Each further attempt of a delivery (an error status, no answer, a worker killed mid-attempt) | +1 | +0 (history records only the last attempt, with its number) |

A job notified of its outcome and delivered at once: 4 actions and 22 events more, in two histories. A job
without \`notify\` costs exactly what it did; \`notify.events\` with \`stage\` adds a child start in the job
and a delivery workflow for each working stage reached. Measured by ${TEST} ("${TEST_NAME}"), with
\`costOf\`, the counter of section 4: it asserts the one \`rtgCheckJobNeeds\` activity and the one child start
in the job, a start and one activity attempt in the delivery, and prints the delivery's events and actions.
`;
}
