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
  'bench/test/cost-figures.test.ts',
  'bench/test/observability-cost.test.ts',
  'bench/test/readme-cost.test.ts',
  'bench/test/targets.test.ts',
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

export default defineConfig({
  // The workspace packages (packages/sandbox) are read from their TypeScript sources, as tsc reads them;
  // the rest are vitest's own defaults.
  ssr: { resolve: { conditions: ['review-video-source', 'node', 'development|production'] } },
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
          include: ['test/**/*.test.ts', 'packages/*/test/**/*.test.ts', 'bench/test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...unit],
          // One Temporal dev server for the whole run, started only when a file of this project runs.
          globalSetup: ['test/support/global-setup.ts'],
          setupFiles: ['test/support/setup-runtime.ts'],
        },
      },
    ],
  },
});
