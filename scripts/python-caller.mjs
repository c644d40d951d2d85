#!/usr/bin/env node
// Finds or installs the Python that runs the Python caller (examples/python/caller.py): Temporal's Python
// SDK and `cryptography` from PyPI, pinned in examples/python/requirements.txt, in a project-local virtual
// environment under .tmp/ (ignored by git, prettier and eslint), one per content of that file. Routes, in
// order: PYTHON_CALLER_PYTHON (an interpreter that already has them); the project's own copy;
// `python3 -m venv` + `pip install -r` from PyPI. Usable as a script (`node scripts/python-caller.mjs
// [--print-path]`) and as a module (`locatePythonCaller()`); test/python/ calls it before running the caller.
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pinnedPython, runAsScript } from './python-venv.mjs';

const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Returns { path, route } of a Python with the pinned packages, installing them when needed; throws if it cannot. */
export const locatePythonCaller = pinnedPython({
  name: 'python-caller',
  requirements: join(projectRoot, 'examples', 'python', 'requirements.txt'),
  envVar: 'PYTHON_CALLER_PYTHON',
  imports: ['temporalio.client', 'cryptography.hazmat.primitives.ciphers.aead'],
});

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url))
  runAsScript('python-caller', locatePythonCaller);
