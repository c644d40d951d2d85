// A project-local Python virtual environment under .tmp/ (ignored by git, prettier and eslint), filled from
// PyPI by pip: the S3 test's moto server (s3-server.mjs), the Python caller (python-caller.mjs) and the
// official Python SDKs (python-sdks.mjs). It is
// built beside its final place and renamed, so an interrupted install never looks complete.
import { createHash } from 'node:crypto';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export function onPath(name) {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const candidate = join(dir, name);
    if (dir && existsSync(candidate)) return candidate;
  }
  return undefined;
}

/**
 * `pip install <args>` with the interpreter `python` (quiet; a failure throws with pip's stderr). Without
 * compiling every module it installs (`--no-compile`): Python compiles the few a test imports when it
 * imports them. Compiling all of moto's modules was half the CPU its install took (22 core-seconds, 12 without).
 */
export function pipInstall(python, args) {
  execFileSync(python, ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '--no-compile', ...args], {
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

/**
 * A Python with the packages pinned in `requirements` (`name==version` lines): the interpreter named by
 * the environment variable `envVar`, else the project's copy under .tmp/<name>/ (one per content of that
 * file), else one installed there from PyPI. `imports` is what the interpreter must import besides the
 * pins' versions. Returns `locate()`: { path, route }, or throws.
 */
export function pinnedPython({ name, requirements, envVar, imports, timeoutMs = 60_000 }) {
  const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
  const pins = readFileSync(requirements, 'utf8');
  const pinned = pins
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  const venv = join(projectRoot, '.tmp', name, createHash('sha256').update(pins).digest('hex').slice(0, 12));
  const installed = join(venv, 'bin', 'python');
  const hasPins = (python) => {
    const check = pinned
      .map((p) => p.split('=='))
      .map(
        ([pkg, version]) =>
          `assert version(${JSON.stringify(pkg)}) == ${JSON.stringify(version)}, ${JSON.stringify(pkg)}`,
      )
      .join('; ');
    const code = `from importlib.metadata import version; ${check}; import ${imports.join(', ')}`;
    return spawnSync(python, ['-c', code], { timeout: timeoutMs }).status === 0;
  };
  const what = pinned.join(', ');
  return function locate() {
    const explicit = process.env[envVar];
    if (explicit) {
      if (!hasPins(explicit)) throw new Error(`${envVar}=${explicit} lacks ${what}`);
      return { path: explicit, route: envVar };
    }
    if (existsSync(installed) && hasPins(installed)) return { path: installed, route: `project copy (.tmp/${name})` };
    const started = Date.now();
    installVenv(venv, ['--only-binary=:all:', '-r', requirements], what);
    if (!hasPins(installed)) throw new Error(`${what} were installed but do not import`);
    return { path: installed, route: `installed ${what} from PyPI in ${((Date.now() - started) / 1000).toFixed(1)}s` };
  };
}

/** Runs `locate` as the script `label` (`--print-path` prints only the path); exits 1 with the reason. */
export function runAsScript(label, locate) {
  try {
    const found = locate();
    console.log(process.argv.includes('--print-path') ? found.path : `${label}: ${found.path} via ${found.route}`);
  } catch (err) {
    console.error(`${label}: ${err.message}`);
    process.exit(1);
  }
}
