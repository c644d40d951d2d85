#!/usr/bin/env node
// Finds or installs the S3-compatible server the store tests run against: moto's standalone server
// (PyPI `moto[server]`, pinned), in a project-local virtual environment under .tmp/ (ignored by git,
// prettier and eslint). Routes, in order: MOTO_SERVER (a path to `moto_server`); the project's own copy;
// `python3 -m venv` + `pip install` from PyPI. Usable as a script (`node scripts/s3-server.mjs
// [--print-path]`) and as a module (`locateMotoServer()`); test/store/ calls it before starting the server.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { installVenv, pipInstall } from './python-venv.mjs';

/** Pinned: moto 5.2.5 (S3 with multipart uploads, ListMultipartUploads and AbortMultipartUpload). */
export const MOTO_VERSION = '5.2.5';
const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const venv = join(projectRoot, '.tmp', 's3-server', `moto-${MOTO_VERSION}`);
const installed = join(venv, 'bin', 'moto_server');

const runs = (binary) => spawnSync(binary, ['--help'], { timeout: 60_000 }).status === 0;

function install() {
  // moto's scripts name their interpreter by absolute path: reinstalled once the venv is in its place.
  installVenv(venv, [`moto[server]==${MOTO_VERSION}`], 'moto[server]', (python) =>
    pipInstall(python, ['--force-reinstall', '--no-deps', `moto==${MOTO_VERSION}`]),
  );
}

/** Returns { path, route } of a working `moto_server`, installing it when needed; throws if it cannot. */
export function locateMotoServer() {
  const explicit = process.env.MOTO_SERVER;
  if (explicit) {
    if (!runs(explicit)) throw new Error(`MOTO_SERVER=${explicit} does not run`);
    return { path: explicit, route: 'MOTO_SERVER' };
  }
  if (existsSync(installed) && runs(installed)) return { path: installed, route: 'project copy (.tmp/s3-server)' };
  const started = Date.now();
  install();
  if (!runs(installed)) throw new Error('moto_server was installed but does not run');
  return {
    path: installed,
    route: `installed moto[server]==${MOTO_VERSION} from PyPI in ${((Date.now() - started) / 1000).toFixed(1)}s`,
  };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    const found = locateMotoServer();
    console.log(
      process.argv.includes('--print-path') ? found.path : `s3-server: moto_server at ${found.path} via ${found.route}`,
    );
  } catch (err) {
    console.error(`s3-server: ${err.message}`);
    process.exit(1);
  }
}
