// The workflow bundle of each release, kept beside its golden histories as
// test/golden/histories/<version>/workflow-bundle.js.gz (docs/upgrading.md). The replay test replays every
// set against its own release's bundle, so a set keeps a replay even after the current code stops supporting
// it: the runs of a release then finish on the build that started them (Worker Deployment versioning,
// PINNED), and the bundle stands in for that build. Written by `npm run record-golden` (with the histories)
// or `npm run record-golden -- --bundle-only`.
//
// The bundle is what `bundleWorkflowCode` makes with the options of the release's worker (its plain
// variant: no tracing interceptors, no encrypting failure converter, as the golden histories were recorded),
// webpack's inline source map included. The SDK's workflow library in it comes from the node_modules of the
// checkout that bundles it: a bundle made later from a worktree of an older release (--from) carries the
// SDK installed now, not the one the release shipped with (for 0.1.0 both are @temporalio/* 1.24.0).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gunzipSync, gzipSync } from 'node:zlib';
import { bundleWorkflowCode, type BundleOptions } from '@temporalio/worker';
import { HISTORIES_DIR } from './history-file.js';

export const RELEASE_BUNDLE_FILE = 'workflow-bundle.js.gz';

/** Where the bundle of `version` lives. */
export function releaseBundlePath(version: string): string {
  return join(HISTORIES_DIR, version, RELEASE_BUNDLE_FILE);
}

/** The bundle's code, or undefined when the version has none. */
export function readReleaseBundle(version: string): string | undefined {
  const file = releaseBundlePath(version);
  return existsSync(file) ? gunzipSync(readFileSync(file)).toString('utf8') : undefined;
}

type WorkflowOptions = Pick<BundleOptions, 'workflowsPath' | 'preloadModules' | 'workflowInterceptorModules'>;

/**
 * The options the worker of the checkout at `root` bundles its workflows with: its own
 * `workflowBundleOptions` (src/bundle-workflows.ts) when it has one, else (0.1.0) the workflows path and the
 * preloaded modules of its src/workflows-path.ts, which is what its bundle-workflows.ts passed.
 */
async function workerBundleOptions(root: string): Promise<WorkflowOptions> {
  const load = (file: string) =>
    import(pathToFileURL(join(root, 'src', file)).href) as Promise<Record<string, unknown>>;
  const { workflowBundleOptions } = await load('bundle-workflows.ts');
  if (typeof workflowBundleOptions === 'function')
    return (workflowBundleOptions as (v: { traced: boolean; encrypted: boolean }) => WorkflowOptions)({
      traced: false,
      encrypted: false,
    });
  const { workflowsPath, workflowPreloadModules } = (await load('workflows-path.ts')) as {
    workflowsPath: string;
    workflowPreloadModules: string[];
  };
  return { workflowsPath, preloadModules: workflowPreloadModules };
}

// webpack lists every module at info level: keep warnings and errors.
const logger = {
  log() {},
  info() {},
  debug() {},
  trace() {},
  warn: (message: string) => console.warn(message),
  error: (message: string) => console.error(message),
};

/**
 * Bundles the workflow code of the checkout at `root` (the repository itself, or a worktree of a release's
 * commit with node_modules linked in) and writes it, gzipped, as the bundle of `version`.
 */
export async function writeReleaseBundle(
  version: string,
  root: string,
): Promise<{ file: string; bytes: number; gzipped: number }> {
  const options = await workerBundleOptions(root);
  // webpack names modules relative to the working directory: from the checkout's root, as its worker ran.
  const cwd = process.cwd();
  process.chdir(root);
  let code: string;
  try {
    ({ code } = await bundleWorkflowCode({ ...options, logger }));
  } finally {
    process.chdir(cwd);
  }
  const file = releaseBundlePath(version);
  // gzip's header carries no time here (Node writes 0): the same code gives the same file.
  const gzipped = gzipSync(code, { level: 9 });
  writeFileSync(file, gzipped);
  return { file, bytes: Buffer.byteLength(code), gzipped: gzipped.length };
}
