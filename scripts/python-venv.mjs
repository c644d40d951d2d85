// A project-local Python virtual environment under .tmp/ (ignored by git, prettier and eslint), filled from
// PyPI by pip: the S3 test's moto server (s3-server.mjs) and the Python caller (python-caller.mjs). It is
// built beside its final place and renamed, so an interrupted install never looks complete.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';

export function onPath(name) {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const candidate = join(dir, name);
    if (dir && existsSync(candidate)) return candidate;
  }
  return undefined;
}

/** `pip install <args>` with the interpreter `python` (quiet; a failure throws with pip's stderr). */
export function pipInstall(python, args) {
  execFileSync(python, ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', ...args], {
    stdio: ['ignore', 'ignore', 'pipe'],
    timeout: 600_000,
  });
}

/**
 * Creates the virtual environment `venv` with `pip install <pipArgs>` (`what` names it in errors).
 * `afterMove(python)` runs once it is in its final place, for what must be installed again there.
 */
export function installVenv(venv, pipArgs, what, afterMove) {
  const python = onPath('python3') ?? onPath('python');
  if (!python) throw new Error(`python3 not found (needed to install ${what} from PyPI)`);
  const work = `${venv}.installing-${process.pid}`;
  rmSync(work, { recursive: true, force: true });
  mkdirSync(dirname(venv), { recursive: true });
  try {
    execFileSync(python, ['-m', 'venv', work], { stdio: ['ignore', 'ignore', 'pipe'], timeout: 120_000 });
    pipInstall(join(work, 'bin', 'python'), pipArgs);
    rmSync(venv, { recursive: true, force: true });
    renameSync(work, venv);
    // A venv names its own folder in pyvenv.cfg and its scripts: re-create it in place after the rename.
    execFileSync(python, ['-m', 'venv', '--upgrade', venv], { stdio: ['ignore', 'ignore', 'pipe'], timeout: 120_000 });
    afterMove?.(join(venv, 'bin', 'python'));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
