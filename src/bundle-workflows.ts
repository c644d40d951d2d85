// `node dist/bundle-workflows.js [out]`: bundles the workflow code once, at image build time (as Temporal's
// production sample does), into dist/workflow-bundle.js, and the same with the OpenTelemetry workflow
// interceptors into dist/workflow-bundle.otel.js. The worker built next to them loads the one that fits
// (`workflowBundle: { codePath }`, traced or not) instead of running webpack over the workflows at every start.
import { writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode } from '@temporalio/worker';
import { isMainModule } from './is-main.js';
import { workflowPreloadModules, workflowsPath } from './workflows-path.js';

/** The workflow interceptors OpenTelemetryPlugin registers (it gives them as a path to bundle). */
export const otelWorkflowInterceptors = createRequire(import.meta.url).resolve(
  '@temporalio/interceptors-opentelemetry/lib/workflow-interceptors',
);

/** `out`, and beside it `<out>.otel.js` with tracing compiled in. */
export async function writeWorkflowBundles(out: string): Promise<string[]> {
  const traced = out.replace(/\.js$/, '') + '.otel.js';
  for (const [file, interceptors] of [
    [out, []],
    [traced, [otelWorkflowInterceptors]],
  ] as const) {
    // The same preloaded modules the plugin adds to a worker's bundler (ReviewVideoPlugin.configureBundler).
    const { code } = await bundleWorkflowCode({
      workflowsPath,
      preloadModules: workflowPreloadModules,
      workflowInterceptorModules: [...interceptors],
    });
    await writeFile(file, code);
  }
  return [out, traced];
}

if (isMainModule(import.meta.url)) {
  const out = process.argv[2] ?? fileURLToPath(new URL('./workflow-bundle.js', import.meta.url));
  writeWorkflowBundles(out).then(
    (files) => process.stdout.write(`workflow bundles written: ${files.join(', ')}\n`),
    (err: unknown) => {
      process.stderr.write(`bundle-workflows: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}
