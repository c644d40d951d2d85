// `node dist/bundle-workflows.js [out]`: bundles the workflow code once, at image build time (as Temporal's
// production sample does), into dist/workflow-bundle.js, and the same with the OpenTelemetry workflow
// interceptors into dist/workflow-bundle.otel.js, and both again with the failure converter of payload
// encryption (`.encrypted.js`, `.otel.encrypted.js`). The worker built next to them loads the one that fits
// (`workflowBundle: { codePath }`, traced or not, encrypting or not) instead of running webpack at every start.
import { writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, type BundleOptions } from '@temporalio/worker';
import { failureConverterPath } from './codec/data-converter.js';
import { isMainModule } from './is-main.js';
import { workflowPreloadModules, workflowsPath } from './workflows-path.js';

/** The workflow interceptors OpenTelemetryPlugin registers (it gives them as a path to bundle). */
export const otelWorkflowInterceptors = createRequire(import.meta.url).resolve(
  '@temporalio/interceptors-opentelemetry/lib/workflow-interceptors',
);

/** The options of one bundle: tracing interceptors and the encrypting failure converter, or not. */
export function workflowBundleOptions(variant: { traced: boolean; encrypted: boolean }) {
  return {
    workflowsPath,
    // The same preloaded modules the plugin adds to a worker's bundler (ReviewVideoPlugin.configureBundler).
    preloadModules: workflowPreloadModules,
    workflowInterceptorModules: variant.traced ? [otelWorkflowInterceptors] : [],
    ...(variant.encrypted ? { failureConverterPath } : {}),
  };
}

/**
 * `out`, and beside it `<out>.otel.js` with tracing, `<out>.encrypted.js` and `<out>.otel.encrypted.js`.
 * `logger`: where webpack's messages go (the default prints them; the tests' set-up keeps them quiet).
 */
export async function writeWorkflowBundles(out: string, logger?: BundleOptions['logger']): Promise<string[]> {
  const files: string[] = [];
  for (const traced of [false, true]) {
    for (const encrypted of [false, true]) {
      const file = `${out.replace(/\.js$/, '')}${traced ? '.otel' : ''}${encrypted ? '.encrypted' : ''}.js`;
      const { code } = await bundleWorkflowCode({
        ...workflowBundleOptions({ traced, encrypted }),
        ...(logger ? { logger } : {}),
      });
      await writeFile(file, code);
      files.push(file);
    }
  }
  return files;
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
