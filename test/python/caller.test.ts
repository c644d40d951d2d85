// The Python caller of docs/starting-jobs.md (examples/python/caller.py), run as a subprocess with
// Temporal's Python SDK (pinned, installed from PyPI into .tmp/ by scripts/python-caller.mjs) against the
// dev server, encryption off and on (the caller's own codec in Python): what it checks is in
// caller-harness.ts, shared with the Go caller's test.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll } from 'vitest';
import { describeCaller } from './caller-harness.js';

const caller = fileURLToPath(new URL('../../examples/python/caller.py', import.meta.url));

let python: string;
beforeAll(async () => {
  const script = fileURLToPath(new URL('../../scripts/python-caller.mjs', import.meta.url));
  const { stdout } = await promisify(execFile)(process.execPath, [script, '--print-path'], { timeout: 900_000 });
  python = stdout.trim();
}, 900_000);

describeCaller({
  name: 'Python',
  prefix: 'py',
  command: (input, key, cancelAtStage) => ({
    file: python,
    args: [caller, input, '--key', key, ...(cancelAtStage ? ['--cancel-at-stage', cancelAtStage] : [])],
  }),
  // No __pycache__ beside the example (it ships in the package).
  env: { PYTHONDONTWRITEBYTECODE: '1' },
  repeatedStart: /WorkflowAlreadyStartedError/,
});
