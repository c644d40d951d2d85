#!/usr/bin/env node
// Finds or installs the Python that runs the official Python SDKs against the sandbox
// (test/python/sdks/clients.py): openai, anthropic, google-genai and volcengine's Ark runtime from PyPI,
// pinned in test/python/sdks/requirements.txt, in a project-local virtual environment under .tmp/ (one per
// content of that file). PYTHON_SDKS_PYTHON names an interpreter that already has them. Usable as a script
// (`node scripts/python-sdks.mjs [--print-path]`) and as a module (`locatePythonSdks()`).
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { installVenv } from './python-venv.mjs';

const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const REQUIREMENTS = join(projectRoot, 'test', 'python', 'sdks', 'requirements.txt');
const pins = readFileSync(REQUIREMENTS, 'utf8');
const PINNED = pins
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l && !l.startsWith('#'));
const venv = join(projectRoot, '.tmp', 'python-sdks', createHash('sha256').update(pins).digest('hex').slice(0, 12));
const installed = join(venv, 'bin', 'python');

/** The interpreter has every pinned package at its version and imports the four SDKs. */
function hasPins(python) {
  const check = PINNED.map((p) => p.split('=='))
    .map(
      ([name, version]) =>
        `assert version(${JSON.stringify(name)}) == ${JSON.stringify(version)}, ${JSON.stringify(name)}`,
    )
    .join('; ');
  const code = `from importlib.metadata import version; ${check}; import openai, anthropic, google.genai, volcenginesdkarkruntime`;
  return spawnSync(python, ['-c', code], { timeout: 120_000 }).status === 0;
}

/** Returns { path, route } of a Python with the pinned SDKs, installing them when needed; throws if it cannot. */
export function locatePythonSdks() {
  const explicit = process.env.PYTHON_SDKS_PYTHON;
  if (explicit) {
    if (!hasPins(explicit)) throw new Error(`PYTHON_SDKS_PYTHON=${explicit} lacks ${PINNED.join(', ')}`);
    return { path: explicit, route: 'PYTHON_SDKS_PYTHON' };
  }
  if (existsSync(installed) && hasPins(installed)) return { path: installed, route: 'project copy (.tmp/python-sdks)' };
  installVenv(venv, ['--only-binary=:all:', '-r', REQUIREMENTS], PINNED.join(', '));
  if (!hasPins(installed)) throw new Error(`${PINNED.join(', ')} were installed but do not import`);
  return { path: installed, route: `installed ${PINNED.join(', ')} from PyPI` };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    const found = locatePythonSdks();
    console.log(process.argv.includes('--print-path') ? found.path : `python-sdks: ${found.path} via ${found.route}`);
  } catch (err) {
    console.error(`python-sdks: ${err.message}`);
    process.exit(1);
  }
}
