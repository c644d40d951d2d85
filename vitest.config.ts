import { configDefaults, defineConfig } from 'vitest/config';

// Two projects hold every test file once: `npm test` runs both, `npm run test:unit` runs `unit` alone.
//
// unit: no Temporal dev server and no child process: pure code, the clients against a node:http server of
// the test, and the sandbox in the test's own process where the file takes a second or so. A file may join
// only if neither it nor a helper it imports calls testClient, startWorker, startStack/withStack or
// inject(...), or spawns a process.
// integration: the rest (workflows on the dev server, processes, the slower sandbox files).
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
  'test/bench/cost-figures.test.ts',
  'test/bench/observability-cost.test.ts',
  'test/bench/readme-cost.test.ts',
  'test/bench/targets.test.ts',
  'test/bench/provider-timeline.test.ts',
  'test/codec/codec.test.ts',
  'test/codec/keys.test.ts',
  'test/gateway/adapters.test.ts',
  'test/observability/http-observer.test.ts',
  'test/observability/units.test.ts',
  'test/plugin/plugin.test.ts',
  'test/properties/url-rules.test.ts',
  'test/services/*.test.ts',
  'test/soak/checks.test.ts',
  'test/versioning/config.test.ts',
  'test/workflows/input-all-problems.test.ts',
  // The sandbox in this process, over HTTP.
  'test/activities/at-most-once.test.ts',
  'test/gateway/activities.test.ts',
  'test/gateway/contract.test.ts',
  'test/bench/quick.test.ts',
  'test/sandbox/audit.test.ts',
  'test/sandbox/auth.test.ts',
  'test/sandbox/close.test.ts',
  'test/sandbox/faults.test.ts',
  'test/sandbox/inspect.test.ts',
  'test/sandbox/public-addresses.test.ts',
  'test/sdks/*.test.ts',
];

export default defineConfig({
  test: {
    setupFiles: ['test/support/fast-check-seed.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Workflow tests start real workers (bundling with webpack): keep the 2-core CI machine unsaturated.
    pool: 'forks',
    maxWorkers: 2,
    reporters: ['default'],
    projects: [
      {
        extends: true,
        // The unit files share one module graph per worker (importing the SDK, undici and zod once per worker
        // rather than once per file is most of their time): a unit file leaves no global state behind
        // (mocks restored, no process.env written).
        test: { name: 'unit', include: unit, isolate: false },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...unit],
          // One Temporal dev server for the whole run, started only when a file of this project runs.
          globalSetup: ['test/support/global-setup.ts'],
          setupFiles: ['test/support/setup-runtime.ts'],
        },
      },
    ],
  },
});
