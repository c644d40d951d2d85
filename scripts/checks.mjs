// `npm test`'s static checks, side by side: the type-check, the format check and the lint of the library
// and its workspaces. Each is one process on one core; run one after another they took ~50 s of a 2-core
// CI machine. Each one's output is printed whole when it ends; the exit code is the first failure's.
import { spawn } from 'node:child_process';

const checks = [
  ['typecheck', 'npm', ['run', 'typecheck']],
  ['format', 'npx', ['prettier', '--check', '.']],
  ['lint', 'npm', ['run', 'lint']],
];

const results = await Promise.all(
  checks.map(
    ([name, command, args]) =>
      new Promise((resolve) => {
        const started = Date.now();
        const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
        let output = '';
        child.stdout.on('data', (d) => (output += d));
        child.stderr.on('data', (d) => (output += d));
        child.on('close', (code) => {
          const seconds = ((Date.now() - started) / 1000).toFixed(0);
          process.stdout.write(`\n[${name}] exit ${code} in ${seconds} s\n${output}`);
          resolve(code ?? 1);
        });
      }),
  ),
);
process.exitCode = results.find((code) => code !== 0) ?? 0;
