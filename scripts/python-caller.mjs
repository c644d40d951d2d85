#!/usr/bin/env node
// Finds or installs the Python that runs the Python caller (examples/python/caller.py): Temporal's Python
// SDK and `cryptography` from PyPI, pinned in examples/python/requirements.txt, in a project-local virtual
// environment under .tmp/ (ignored by git, prettier and eslint), one per content of that file. Routes, in
// order: PYTHON_CALLER_PYTHON (an interpreter that already has them); the project's own copy;
// `python3 -m venv` + `pip install -r` from PyPI. Usable as a script (`node scripts/python-caller.mjs
// [--print-path]`) and as a module (`locatePythonCaller()`); test/python/ calls it before running the caller.
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { installVenv } from './python-venv.mjs';

const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const REQUIREMENTS = join(projectRoot, 'examples', 'python', 'requirements.txt');
const pins = readFileSync(REQUIREMENTS, 'utf8');
/** The pinned `name==version` lines of requirements.txt. */
export const PINNED = pins
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l && !l.startsWith('#'));
const venv = join(projectRoot, '.tmp', 'python-caller', createHash('sha256').update(pins).digest('hex').slice(0, 12));
const installed = join(venv, 'bin', 'python');

/** The interpreter imports both packages at their pinned versions. */
function hasPins(python) {
  const check = PINNED.map((p) => p.split('=='))
    .map(
      ([name, version]) =>
        `assert version(${JSON.stringify(name)}) == ${JSON.stringify(version)}, ${JSON.stringify(name)}`,
    )
    .join('; ');
  const code = `from importlib.metadata import version; ${check}; import temporalio.client, cryptography.hazmat.primitives.ciphers.aead`;
  return spawnSync(python, ['-c', code], { timeout: 60_000 }).status === 0;
}

function install() {
  installVenv(venv, ['--only-binary=:all:', '-r', REQUIREMENTS], PINNED.join(', '));
}

/** Returns { path, route } of a Python with the pinned packages, installing them when needed; throws if it cannot. */
export function locatePythonCaller() {
  const explicit = process.env.PYTHON_CALLER_PYTHON;
  if (explicit) {
    if (!hasPins(explicit)) throw new Error(`PYTHON_CALLER_PYTHON=${explicit} lacks ${PINNED.join(', ')}`);
    return { path: explicit, route: 'PYTHON_CALLER_PYTHON' };
  }
  if (existsSync(installed) && hasPins(installed))
    return { path: installed, route: 'project copy (.tmp/python-caller)' };
  const started = Date.now();
  install();
  if (!hasPins(installed)) throw new Error(`${PINNED.join(', ')} were installed but do not import`);
  return {
    path: installed,
    route: `installed ${PINNED.join(', ')} from PyPI in ${((Date.now() - started) / 1000).toFixed(1)}s`,
  };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    const found = locatePythonCaller();
    console.log(process.argv.includes('--print-path') ? found.path : `python-caller: ${found.path} via ${found.route}`);
  } catch (err) {
    console.error(`python-caller: ${err.message}`);
    process.exit(1);
  }
}
