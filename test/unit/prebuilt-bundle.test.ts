// Which workflow code a worker runs (src/worker.ts prebuiltBundle): a bundle made ahead of time, given by
// WORKFLOW_BUNDLE_PATH, is used only where it has what the worker needs. A traced worker needs the
// OpenTelemetry interceptors compiled in (its `.otel` variant), an encrypting one the failure converter
// (its `.encrypted` variant); without them it bundles at start, rather than silently lose the workflow
// spans or write failure messages in plain text.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { prebuiltBundle } from '../../src/worker.js';

function bundles(...names: string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'rtg-bundles-'));
  for (const name of names) writeFileSync(join(dir, name), '// a bundle\n');
  return join(dir, 'workflow-bundle.js');
}

describe('prebuiltBundle with WORKFLOW_BUNDLE_PATH', () => {
  it('a plain worker runs the given bundle', () => {
    const path = bundles('workflow-bundle.js');
    expect(prebuiltBundle({ WORKFLOW_BUNDLE_PATH: path })).toEqual({ workflowBundle: { codePath: path } });
  });

  it('a traced or encrypting worker runs its variant beside the given bundle', () => {
    const path = bundles('workflow-bundle.js', 'workflow-bundle.otel.js', 'workflow-bundle.otel.encrypted.js');
    const env = { WORKFLOW_BUNDLE_PATH: path };
    expect(prebuiltBundle(env, true)).toEqual({ workflowBundle: { codePath: path.replace(/js$/, 'otel.js') } });
    expect(prebuiltBundle(env, true, true)).toEqual({
      workflowBundle: { codePath: path.replace(/js$/, 'otel.encrypted.js') },
    });
  });

  it('without its variant, a traced or encrypting worker bundles at start instead of using the plain one', () => {
    const env = { WORKFLOW_BUNDLE_PATH: bundles('workflow-bundle.js') };
    expect(prebuiltBundle(env, true)).toEqual({});
    expect(prebuiltBundle(env, false, true)).toEqual({});
  });
});
