import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    setupFiles: ['test/support/setup-runtime.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Workflow tests start real workers (bundling with webpack): keep the 2-core CI machine unsaturated.
    pool: 'forks',
    maxWorkers: 2,
    reporters: ['default'],
  },
});
