import { configDefaults, defineConfig } from 'vitest/config';
import { LongestFirst } from './test/support/longest-first.js';

// Five lanes (vitest projects) hold every test file once, grouped by the resource a file spends, and
// `npm test` runs them one after another (sequence.groupOrder), each at the parallelism that resource
// allows on the 2-core CI machine; `batch` runs beside `timers`:
//
// unit: no Temporal dev server and no child process: pure code, the clients against a node:http server of
// the test, and the sandbox in the test's own process where the file takes a second or so. A file may join
// only if neither it nor a helper it imports calls testClient, startWorker, startStack/withStack or
// inject(...), or spawns a process.
// timers: workflows on the dev server, and the sandbox in the test's process, where a file spends its time
// waiting on the services' durations, the runs' timers and query spacing, not on a core: more of them run
// at a time. A file that starts or kills processes along the way does not belong here (one worker process
// started with the file's stack does).
// integration: the files that spend CPU: worker, receiver, CLI and dev-stack processes (each starts
// Node and tsx), the golden replay, the property tests on the server.
// batch: the 2,000-job batch, the longest file (about 3 minutes of workflow tasks): alone, beside the timers
// lane, whose files wait more than they compute, rather than alone at the end.
// system: the soak, the package installed from its tarball, the Go, Python, S3 and Helm tests: whole
// processes, toolchains and many jobs; they run two at a time, last.
//
// timers, integration and system share one dev server and one workflow bundle (test/support/global-setup.ts).
// Within a lane the longest files start first (test/support/longest-first.ts).

const unit = [
  'test/unit/**/*.test.ts',
  'test/architecture.test.ts',
  'test/compose.test.ts',
  'test/config-base-urls.test.ts',
  'test/config-private-urls.test.ts',
  'test/docs-links.test.ts',
  'test/cited-paths.test.ts',
  'test/docs-defaults.test.ts',
  'test/docs-code-blocks.test.ts',
  'bench/test/cost-figures.test.ts',
  'bench/test/observability-cost.test.ts',
  'bench/test/benchmarks-page.test.ts',
  'bench/test/job-cost.test.ts',
  'bench/test/provider-timeline.test.ts',
  'test/codec/codec.test.ts',
  'test/codec/keys.test.ts',
  'test/gateway/adapters.test.ts',
  'test/observability/http-observer.test.ts',
  'test/observability/units.test.ts',
  'test/plugin/plugin.test.ts',
  'test/properties/url-rules.test.ts',
  'test/services/*.test.ts',
  'bench/test/soak-checks.test.ts',
  'bench/test/soak-options.test.ts',
  'test/versioning/config.test.ts',
  'test/workflows/input-all-problems.test.ts',
  // The sandbox in this process, over HTTP.
  'test/activities/at-most-once.test.ts',
  'test/gateway/activities.test.ts',
  'test/gateway/contract.test.ts',
  'bench/test/quick.test.ts',
  'packages/sandbox/test/audit.test.ts',
  'packages/sandbox/test/auth.test.ts',
  'packages/sandbox/test/close.test.ts',
  'packages/sandbox/test/faults.test.ts',
  'packages/sandbox/test/inspect.test.ts',
  'packages/sandbox/test/public-addresses.test.ts',
  'test/sdks/*.test.ts',
  'packages/sandbox/test/architecture.test.ts',
  'bench/test/architecture.test.ts',
];

const timers = [
  'test/activities/query-pacing.test.ts',
  'test/admission/admitted-at-once.test.ts',
  'test/admission/budget-only.test.ts',
  'test/admission/gate.test.ts',
  'test/admission/gateway-quota.test.ts',
  'test/admission/gateway-slot.test.ts',
  'test/admission/rate.test.ts',
  'test/admission/rate-late-create.test.ts',
  'test/admission/video-budget-seconds.test.ts',
  'test/batch/batch.test.ts',
  'test/batch/read-jobs.test.ts',
  'test/batch/schedule.test.ts',
  'test/callbacks/key-rotation.test.ts',
  'test/callbacks/receiver.test.ts',
  'test/client/start.test.ts',
  'test/client/temporal-profile.test.ts',
  'test/client/visibility.test.ts',
  'test/foundation.test.ts',
  'test/gateway/generate-and-poll.test.ts',
  'test/plugin/worker.test.ts',
  'packages/sandbox/test/audit-backoff.test.ts',
  'packages/sandbox/test/audit-duplicates.test.ts',
  'test/audit-package-traffic.test.ts',
  'packages/sandbox/test/callback-faults.test.ts',
  'packages/sandbox/test/quota-rate.test.ts',
  'packages/sandbox/test/quotas.test.ts',
  'packages/sandbox/test/retry-after.test.ts',
  'packages/sandbox/test/review.test.ts',
  'packages/sandbox/test/video.test.ts',
  'test/store/sandbox-video-file.test.ts',
  'test/workflows/cancel-and-callbacks.test.ts',
  'test/workflows/create-ambiguity.test.ts',
  'test/workflows/echoed-secrets.test.ts',
  'test/workflows/failures.test.ts',
  'test/workflows/happy-path.test.ts',
  'test/workflows/history-cost.test.ts',
  'test/workflows/lost-answer.test.ts',
  'test/workflows/no-preload.test.ts',
  'test/workflows/notify-stages.test.ts',
  'test/workflows/notify.test.ts',
  'test/workflows/polling-only-worker.test.ts',
  'test/workflows/review-ambiguity.test.ts',
  'test/workflows/stopped-poll-backoff.test.ts',
  'test/workflows/sync-review-retry-after.test.ts',
  'test/workflows/sync-review.test.ts',
  // A job of 500 polls: one activity whose retries the server schedules, a GET each, no workflow task.
  'test/workflows/history-size.test.ts',
  // One worker process at the start, then jobs waiting on the sandbox's durations and the quotas: counts
  // and order only, whatever the machine's load.
  'test/admission/video-quota.test.ts',
  'test/admission/review-quota.test.ts',
  // Not notify-crash, two-workers, worker-crash: they kill and start worker processes along the way.
];

const batch = ['test/batch/large.test.ts'];

const system = [
  'bench/test/soak.test.ts',
  'test/package/pack-install.test.ts',
  'test/go/*.test.ts',
  'test/python/*.test.ts',
  'test/store/s3-store.test.ts',
  'test/helm/*.test.ts',
];

/** The lanes on the dev server: the run's server and workflow bundle, and quiet SDK logs in each file. */
const onServer = {
  globalSetup: ['test/support/global-setup.ts'],
  setupFiles: ['test/support/setup-runtime.ts'],
};

export default defineConfig({
  // The workspace packages (packages/sandbox) are read from their TypeScript sources, as tsc reads them;
  // the rest are vitest's own defaults.
  ssr: { resolve: { conditions: ['review-video-source', 'node', 'development|production'] } },
  test: {
    setupFiles: ['test/support/fast-check-seed.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    sequence: { sequencer: LongestFirst },
    // A lane's own maxWorkers wins; this is for a run of files outside the lanes (none today).
    maxWorkers: 2,
    reporters: ['default'],
    projects: [
      {
        extends: true,
        // The unit files share one module graph per worker (importing the SDK, undici and zod once per worker
        // rather than once per file is most of their time): a unit file leaves no global state behind
        // (mocks restored, no process.env written).
        test: { name: 'unit', include: unit, isolate: false, maxWorkers: 2, sequence: { groupOrder: 0 } },
      },
      {
        extends: true,
        // Waiting, not computing: four files at a time beside the batch (five once it is done) keep the two
        // cores busy without starving a worker.
        test: {
          name: 'timers',
          include: timers,
          maxWorkers: 5,
          sequence: { groupOrder: 1 },
          ...onServer,
        },
      },
      {
        extends: true,
        // One file; in the timers lane's group, whose size it shares (Vitest runs a group in one pool):
        // it starts first, and four timers files run beside it.
        test: { name: 'batch', include: batch, maxWorkers: 5, sequence: { groupOrder: 1 }, ...onServer },
      },
      {
        extends: true,
        // Each file starts Node processes or replays histories: two at a time, one per core.
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts', 'packages/*/test/**/*.test.ts', 'bench/test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...unit, ...timers, ...batch, ...system],
          maxWorkers: 2,
          sequence: { groupOrder: 2 },
          ...onServer,
        },
      },
      {
        extends: true,
        test: { name: 'system', include: system, maxWorkers: 2, sequence: { groupOrder: 3 }, ...onServer },
      },
    ],
  },
});
