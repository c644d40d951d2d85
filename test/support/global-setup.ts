// Once per test run: one real Temporal dev server (the Temporal CLI) on free ports, and the workflow code
// bundled once (webpack takes about 3 s a bundle), both shared by every test file of every lane through
// vitest's provide/inject, and stopped or removed at the end of the run.
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

interface RunResources {
  address: string;
  namespace: string;
  uiUrl: string;
  workflowBundlePath: string;
  stop(): Promise<void>;
}

async function startRunResources(): Promise<RunResources> {
  const started = Date.now();
  const bundleDir = mkdtempSync(join(tmpdir(), 'rtg-test-bundle-'));
  const workflowBundlePath = join(bundleDir, 'workflow-bundle.js');
  // The dev server starts while webpack bundles: one waits on a process, the other uses a core.
  const [server] = await Promise.all([startDevServer({ ui: true }), writeWorkflowBundles(workflowBundlePath, quiet)]);
  console.log(
    `[temporal] dev server ${server.cliVersion} listening on ${server.address} (namespace ${server.namespace}, Web UI ${server.uiUrl}); workflow code bundled once into ${bundleDir}; ready in ${Date.now() - started} ms`,
  );
  return {
    address: server.address,
    namespace: server.namespace,
    uiUrl: server.uiUrl ?? '',
    workflowBundlePath,
    async stop() {
      await server.teardown();
      rmSync(bundleDir, { recursive: true, force: true });
      console.log('[temporal] dev server stopped');
    },
  };
}

// Every lane that needs the server (vitest.config.ts) lists this set-up, and vitest runs it once per lane,
// in this one process: the lanes share one server and one bundle, stopped after the last lane's teardown.
const shared = globalThis as { rtgTestRun?: { lanes: number; ready: Promise<RunResources> } };

export default async function setup(project: TestProject) {
  const run = (shared.rtgTestRun ??= { lanes: 0, ready: startRunResources() });
  run.lanes++;
  const resources = await run.ready;
  project.provide('temporalAddress', resources.address);
  project.provide('temporalNamespace', resources.namespace);
  project.provide('temporalUiUrl', resources.uiUrl);
  project.provide('workflowBundlePath', resources.workflowBundlePath);
  return async () => {
    if (--run.lanes > 0) return;
    shared.rtgTestRun = undefined;
    await resources.stop();
  };
}
