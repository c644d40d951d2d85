// The repository's static checks, as a file of `npm test` (its `checks` lane): the type-check, the format
// check and the lint of the library and its workspaces, one after another, each one process on one core.
// They run beside the files that wait on the dev server rather than before the suite, where they held both
// cores of the CI machine for most of a minute.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const root = fileURLToPath(new URL('../', import.meta.url));

/** Runs a command at the repository's root: its exit code and everything it printed. */
function run(command: string, args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

it.each([
  ['the type-check of the library, its tests and its workspaces (npm run typecheck)', 'npm', ['run', 'typecheck']],
  ['the format check (prettier --check .)', 'npx', ['prettier', '--check', '.']],
  ['the lint of the library and its workspaces (npm run lint)', 'npm', ['run', 'lint']],
])('%s passes', { timeout: 300_000 }, async (_check, command, args) => {
  const { code, output } = await run(command, args as string[]);
  expect(code, output).toBe(0);
});
