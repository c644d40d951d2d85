import { configDefaults, defineConfig } from 'vitest/config';
import { LongestFirst } from './test/support/longest-first.js';

// Six lanes (vitest projects) hold every test file once, by the resource a file spends. `npm test` runs
// them in two groups (sequence.groupOrder), one after the other; the lanes of a group share one pool of
// workers, and its files start longest first whatever their lane (test/support/longest-first.ts), so that
// files that wait run beside files that compute:
//
// unit: no Temporal dev server and no child process: pure code, the clients against a node:http server of
// the test, and the sandbox in the test's own process where the file takes a second or so. A file may join
// only if neither it nor a helper it imports calls testClient, startWorker, startStack/withStack or
// inject(...), or spawns a process.
// timers: workflows on the dev server, and the sandbox in the test's process, where a file spends its time
// waiting on the services' durations, the runs' timers and query spacing, not on a core. A file that
// starts or kills processes along the way does not belong here (one worker process started with the
// file's stack does).
// batch: the 2,000-job batch, the longest file (about 2 minutes of workflow tasks alone).
// checks: the static checks (type-check, format, lint), processes that use a core each, one after another.
// Those four are the first group: five files at a time keep the two cores of the CI machine busy.
//
// integration: the files that start worker, receiver, CLI and dev-stack processes (each starts Node and
// tsx), the golden replay, the property tests on the server.
// system: the soak, the package installed from its tarball, the Go, Python, S3 and Helm tests: whole
// processes, toolchains and many jobs.
// Those two are the second group, four files at a time: they wait on the processes they start.
//
// Every lane but unit shares one dev server and one workflow bundle (test/support/global-setup.ts). Within
// a worker the files of a lane share their modules (isolate: false): the SDK, undici and zod are imported
// once per worker, not once per file, so a file leaves no global state behind (mocks restored, no
// process.env left written).

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

const checks = ['test/static-checks.test.ts'];

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
  isolate: false,
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
        test: { name: 'unit', include: unit, isolate: false, maxWorkers: 5, sequence: { groupOrder: 0 } },
      },
      {
        extends: true,
        test: {
          name: 'timers',
          include: timers,
          maxWorkers: 5,
          sequence: { groupOrder: 0 },
          ...onServer,
        },
      },
      {
        extends: true,
        test: { name: 'batch', include: batch, maxWorkers: 5, sequence: { groupOrder: 0 }, ...onServer },
      },
      {
        extends: true,
        test: { name: 'checks', include: checks, maxWorkers: 5, sequence: { groupOrder: 0 } },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts', 'packages/*/test/**/*.test.ts', 'bench/test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...unit, ...timers, ...batch, ...checks, ...system],
          maxWorkers: 4,
          sequence: { groupOrder: 1 },
          ...onServer,
        },
      },
      {
        extends: true,
        test: { name: 'system', include: system, maxWorkers: 4, sequence: { groupOrder: 1 }, ...onServer },
      },
    ],
  },
});
