// Absolute path of the workflows module, for `Worker.create({ workflowsPath })`: the .ts source when run
// from source (tsx, vitest), the compiled .js when run from dist/ or the installed package.
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';

const ext = extname(fileURLToPath(import.meta.url));
export const workflowsPath = fileURLToPath(new URL(`./workflows/index${ext}`, import.meta.url));

/**
 * For `Worker.create({ bundlerOptions: { preloadModules: workflowPreloadModules } })` (or the
 * `preloadModules` of `bundleWorkflowCode`): our workflow modules and zod are then evaluated once per
 * worker thread and shared by every run, instead of once per workflow run. They hold no state of a run
 * (the schemas are pure and built on first use), so sharing them is safe; without it everything still
 * works, each run just costs more CPU and its cached workflow more memory (the `tuning` runs of `npm run bench`).
 * Works the same when your own workflows module re-exports ours.
 */
export const workflowPreloadModules: string[] = [workflowsPath];
