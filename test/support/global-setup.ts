// Once per test run: one real Temporal dev server (the Temporal CLI) on free ports, shared by every test
// file through vitest's provide/inject, and stopped at the end of the run.
import type { TestProject } from 'vitest/node';
import { startDevServer } from '../../src/dev/temporal-dev-server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    temporalAddress: string;
    temporalNamespace: string;
    temporalUiUrl: string;
  }
}

export default async function setup(project: TestProject) {
  const started = Date.now();
  const server = await startDevServer({ ui: true });
  console.log(
    `[temporal] dev server ${server.cliVersion} listening on ${server.address} (namespace ${server.namespace}, Web UI ${server.uiUrl}) started in ${Date.now() - started} ms`,
  );
  project.provide('temporalAddress', server.address);
  project.provide('temporalNamespace', server.namespace);
  project.provide('temporalUiUrl', server.uiUrl ?? '');
  return async () => {
    await server.teardown();
    console.log('[temporal] dev server stopped');
  };
}
