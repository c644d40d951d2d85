#!/usr/bin/env node
// Finds or installs the Python that runs the official Python SDKs against the sandbox
// (test/python/sdks/clients.py): openai, anthropic, google-genai and volcengine's Ark runtime from PyPI,
// pinned in test/python/sdks/requirements.txt, in a project-local virtual environment under .tmp/ (one per
// content of that file). PYTHON_SDKS_PYTHON names an interpreter that already has them. Usable as a script
// (`node scripts/python-sdks.mjs [--print-path]`) and as a module (`locatePythonSdks()`).
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pinnedPython, runAsScript } from './python-venv.mjs';

const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Returns { path, route } of a Python with the pinned SDKs, installing them when needed; throws if it cannot. */
export const locatePythonSdks = pinnedPython({
  name: 'python-sdks',
  requirements: join(projectRoot, 'test', 'python', 'sdks', 'requirements.txt'),
  envVar: 'PYTHON_SDKS_PYTHON',
  imports: ['openai', 'anthropic', 'google.genai', 'volcenginesdkarkruntime'],
  timeoutMs: 120_000,
});

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url))
  runAsScript('python-sdks', locatePythonSdks);
