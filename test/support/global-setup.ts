// Once per test run: one real Temporal dev server (the Temporal CLI) on free ports, and the workflow code
// bundled once (webpack takes about 3 s a bundle), both shared by every test file through vitest's
// provide/inject, and stopped or removed at the end of the run.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { writeWorkflowBundles } from '../../src/bundle-workflows.js';
import { startDevServer } from '../../src/dev/temporal-dev-server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    temporalAddress: string;
    temporalNamespace: string;
    temporalUiUrl: string;
    /**
     * The workflow bundle as our worker's image builds it (src/bundle-workflows.ts), with its traced and
     * encrypting variants beside it: what in-process workers load (`workflowBundle: { codePath }`) and
     * what worker processes get as WORKFLOW_BUNDLE_PATH.
     */
    workflowBundlePath: string;
  }
}

const quiet = { log() {}, info() {}, warn() {}, error() {}, debug() {}, trace() {} };

export default async function setup(project: TestProject) {
  const started = Date.now();
  const bundleDir = mkdtempSync(join(tmpdir(), 'rtg-test-bundle-'));
  const bundlePath = join(bundleDir, 'workflow-bundle.js');
  // The dev server starts while webpack bundles: one waits on a process, the other uses a core.
  const [server] = await Promise.all([startDevServer({ ui: true }), writeWorkflowBundles(bundlePath, quiet)]);
  console.log(
    `[temporal] dev server ${server.cliVersion} listening on ${server.address} (namespace ${server.namespace}, Web UI ${server.uiUrl}); workflow code bundled once into ${bundleDir}; ready in ${Date.now() - started} ms`,
  );
  project.provide('temporalAddress', server.address);
  project.provide('temporalNamespace', server.namespace);
  project.provide('temporalUiUrl', server.uiUrl ?? '');
  project.provide('workflowBundlePath', bundlePath);
  return async () => {
    await server.teardown();
    rmSync(bundleDir, { recursive: true, force: true });
    console.log('[temporal] dev server stopped');
  };
}
