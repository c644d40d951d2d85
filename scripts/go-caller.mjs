#!/usr/bin/env node
// Builds the Go caller (examples/go: Temporal's Go SDK at the version its go.mod and go.sum pin) into
// .tmp/go-caller/<hash>/caller (ignored by git, prettier and eslint), one binary per content of the module's
// files and Go version, so a repeated run finds it built. Its modules come from the Go module proxy
// (`go mod download`, GOFLAGS=-mod=mod) into Go's default module cache; compiled packages stay in Go's build
// cache. The go command: GO_CALLER_GO, else `go` on PATH, else /usr/local/go/bin/go. Usable as a script
// (`node scripts/go-caller.mjs [--print-path | --go-test]`; --go-test runs the example's own
// `go test`) and as a module (`locateGoCaller()`, `goTest()`); test/go/ runs it as a script, so that a cold
// build does not block the test process.
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { onPath } from './python-venv.mjs';

const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const GO_MODULE = join(projectRoot, 'examples', 'go');
const builds = join(projectRoot, '.tmp', 'go-caller');

/** The go command to use; throws when there is none. */
export function goCommand() {
  const go = process.env.GO_CALLER_GO || onPath('go') || '/usr/local/go/bin/go';
  if (!existsSync(go)) throw new Error('go not found (set GO_CALLER_GO, or put go on PATH)');
  return go;
}

function go(args, timeout = 600_000) {
  return execFileSync(goCommand(), args, {
    cwd: GO_MODULE,
    // Modules resolved and fetched as go.mod says; no VCS stamp (a clone may lack the .git it wants).
    env: { ...process.env, GOFLAGS: '-mod=mod -buildvcs=false' },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout,
  });
}

/** What the binary is built from: the module's files (tests aside) and the Go version. */
function buildHash() {
  const hash = createHash('sha256').update(go(['version'], 60_000));
  const files = readdirSync(GO_MODULE)
    .filter((f) => f === 'go.mod' || f === 'go.sum' || (f.endsWith('.go') && !f.endsWith('_test.go')))
    .sort();
  for (const file of files)
    hash
      .update(`${file}\0`)
      .update(readFileSync(join(GO_MODULE, file)))
      .update('\0');
  return hash.digest('hex').slice(0, 12);
}

/** Returns { path, route } of the built caller, building it when needed; throws if it cannot. */
export function locateGoCaller() {
  const hash = buildHash();
  const dir = join(builds, hash);
  const binary = join(dir, 'caller');
  if (existsSync(binary)) return { path: binary, route: `project copy (.tmp/go-caller/${hash})` };
  const started = Date.now();
  const work = `${dir}.building-${process.pid}`;
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  try {
    go(['mod', 'download']);
    go(['build', '-trimpath', '-o', join(work, 'caller'), '.']);
    rmSync(dir, { recursive: true, force: true });
    renameSync(work, dir);
  } catch (err) {
    throw new Error(`building examples/go failed: ${err.stderr || err.message}`, { cause: err });
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  // Builds of earlier contents of the example are of no further use (another process's build in progress is).
  for (const other of readdirSync(builds))
    if (other !== hash && !other.includes('.building-')) rmSync(join(builds, other), { recursive: true, force: true });
  return { path: binary, route: `built in ${((Date.now() - started) / 1000).toFixed(1)}s` };
}

/** `go test` of the example (its codec's edges); returns go's output, throws with it on a failure. */
export function goTest() {
  try {
    go(['mod', 'download']);
    return go(['test', '-count=1', '.']);
  } catch (err) {
    throw new Error(`go test in examples/go failed:\n${err.stdout ?? ''}${err.stderr || err.message}`, {
      cause: err,
    });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    if (process.argv.includes('--go-test')) {
      process.stdout.write(goTest());
      process.exit(0);
    }
    const found = locateGoCaller();
    console.log(process.argv.includes('--print-path') ? found.path : `go-caller: ${found.path} via ${found.route}`);
  } catch (err) {
    console.error(`go-caller: ${err.message}`);
    process.exit(1);
  }
}
