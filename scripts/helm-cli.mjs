#!/usr/bin/env node
// Finds or installs the Helm CLI that test/helm/ runs (`helm lint`, `helm template` of deploy/helm/) and
// prints one line saying how, as scripts/temporal-cli.mjs does for the Temporal CLI. Routes, in order:
//   1. HELM_CLI (a path to the binary);
//   2. the project's copy in .tmp/helm-cli/<version>/helm (ignored by git, docker, prettier and eslint),
//      when it reports the pinned version;
//   3. `helm` on PATH, when it is Helm 3.14 or later;
//   4. `go install` of the pinned Helm module from the Go module proxy into .tmp/helm-cli/<version>/ (no
//      registry this project reaches ships a Helm binary; Helm's own downloads are not reachable). The
//      ldflags are those of Helm's Makefile: the version it reports, and the Kubernetes version its
//      `helm template` and `helm lint` assume by default (its client-go's, 1.34).
// Usable as a script (`node scripts/helm-cli.mjs [--print-path] [--quiet-if-found]`) and as a module
// (`locateHelmCli()`). The script records what it found in .tmp/helm-cli/located.json; `npm test` runs it first.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { onPath } from './python-venv.mjs';

/** Pinned Helm version (a Go module version the proxy serves). */
export const HELM_VERSION = 'v3.19.0';
/** The Kubernetes version Helm 3.19's client-go speaks (k8s.io/client-go v0.34): Helm's Makefile sets it. */
const KUBE_MAJOR = '1';
const KUBE_MINOR = '34';
const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const cliRoot = join(projectRoot, '.tmp', 'helm-cli');
const installDir = join(cliRoot, HELM_VERSION);
const installedBinary = join(installDir, 'helm');

function versionOf(binary) {
  const r = spawnSync(binary, ['version', '--template', '{{.Version}}'], { encoding: 'utf8', timeout: 20_000 });
  if (r.status !== 0) return undefined;
  return r.stdout.trim() || undefined;
}

/** Helm 3.14 or later (the chart's templates need nothing newer; 4.x is not what the tests pin). */
function usable(version) {
  const m = /^v3\.(\d+)\./.exec(version ?? '');
  return m !== null && Number(m[1]) >= 14;
}

function goCommand() {
  const go = process.env.HELM_CLI_GO || onPath('go') || '/usr/local/go/bin/go';
  if (!existsSync(go)) throw new Error('go not found (set HELM_CLI_GO, or put go on PATH)');
  return go;
}

function fromGoProxy() {
  const go = goCommand();
  const ldflags = [
    '-s',
    '-w',
    `-X helm.sh/helm/v3/internal/version.version=${HELM_VERSION}`,
    '-X helm.sh/helm/v3/internal/version.gitTreeState=clean',
    `-X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMajor=${KUBE_MAJOR}`,
    `-X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMinor=${KUBE_MINOR}`,
    `-X helm.sh/helm/v3/pkg/chartutil.k8sVersionMajor=${KUBE_MAJOR}`,
    `-X helm.sh/helm/v3/pkg/chartutil.k8sVersionMinor=${KUBE_MINOR}`,
  ].join(' ');
  // Built beside its final place and renamed: an interrupted install never looks complete.
  const work = `${installDir}.installing-${process.pid}`;
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  try {
    execFileSync(go, ['install', '-ldflags', ldflags, `helm.sh/helm/v3/cmd/helm@${HELM_VERSION}`], {
      // GOTOOLCHAIN=local: the installed Go builds it (Helm 3.19 needs Go 1.24); no toolchain download.
      env: { ...process.env, GOBIN: work, CGO_ENABLED: '0', GOFLAGS: '-buildvcs=false', GOTOOLCHAIN: 'local' },
      stdio: ['ignore', 'ignore', 'pipe'],
      timeout: 1_500_000,
    });
    if (!existsSync(join(work, 'helm'))) throw new Error('go install produced no binary');
    rmSync(installDir, { recursive: true, force: true });
    renameSync(work, installDir);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return `go install helm.sh/helm/v3/cmd/helm@${HELM_VERSION}`;
}

/**
 * Returns { path, version, route } of a working Helm CLI, installing the pinned one when needed.
 * `path` is undefined when every route failed; `route` then says why.
 */
export function locateHelmCli() {
  const explicit = process.env.HELM_CLI;
  if (explicit) {
    const version = versionOf(explicit);
    if (!version) throw new Error(`HELM_CLI=${explicit} does not run (\`${explicit} version\` failed)`);
    return { path: explicit, version, route: 'HELM_CLI' };
  }
  const existing = existsSync(installedBinary) ? versionOf(installedBinary) : undefined;
  if (existing === HELM_VERSION)
    return { path: installedBinary, version: existing, route: 'project copy (.tmp/helm-cli)' };
  const found = onPath('helm');
  const foundVersion = found ? versionOf(found) : undefined;
  if (found && usable(foundVersion)) return { path: found, version: foundVersion, route: 'PATH' };

  const started = Date.now();
  try {
    const how = fromGoProxy();
    const version = versionOf(installedBinary);
    if (version !== HELM_VERSION) throw new Error(`installed binary reports ${version ?? 'nothing'}`);
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    return { path: installedBinary, version, route: `installed from ${how} in ${seconds}s` };
  } catch (err) {
    const why = String(err?.stderr ?? err?.message ?? err)
      .trim()
      .split('\n')
      .slice(-1)[0];
    return { path: undefined, version: undefined, route: `none (Go module proxy: ${why})` };
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    const cli = locateHelmCli();
    if (cli.path) {
      mkdirSync(cliRoot, { recursive: true });
      writeFileSync(join(cliRoot, 'located.json'), `${JSON.stringify({ path: cli.path, version: cli.version })}\n`);
    }
    if (process.argv.includes('--print-path')) {
      if (!cli.path) {
        console.error(`helm-cli: not available: ${cli.route}`);
        process.exit(1);
      }
      console.log(cli.path);
    } else if (!(process.argv.includes('--quiet-if-found') && cli.path && !cli.route.startsWith('installed'))) {
      // Without a Helm CLI only test/helm/ fails (saying why); the rest of `npm test` still runs.
      console.log(`helm-cli: ${cli.version ?? 'not available'} at ${cli.path ?? '-'} via ${cli.route}`);
    }
  } catch (err) {
    console.error(`helm-cli: ${err.message}`);
    process.exit(1);
  }
}
