// `npm run record-golden [-- --only <path>[,<path>...]] [-- --force]`: records the golden histories of
// this release into test/golden/histories/<package.json version>/<path>.json (docs/upgrading.md). It starts
// its own Temporal dev server, the sandbox and a worker on free ports, drives every path of
// test/golden/paths.ts, and writes a run only when it ended as its path says and holds no secret. Then it
// writes the release's workflow bundle beside them (workflow-bundle.js.gz, test/golden/release-bundle.ts),
// which the replay test replays the set against.
// A version folder that already holds histories is never overwritten without --only or --force: bump the
// version first, so the histories of running jobs of the previous release stay in the replay test.
//
// `npm run record-golden -- --bundle-only [--from <checkout>] [--force]`: writes only the bundle, for a set
// whose histories exist. --from bundles another checkout (a `git worktree add` of a release's commit, with
// node_modules linked from this one) as the bundle of the version its package.json names; replacing the
// bundle of a version other than this package's (a release that is out) takes --force.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { containsSecret, endingOf, HISTORIES_DIR, toGoldenJson } from '../test/golden/history-file.js';
import { GOLDEN_PATH_NAMES, GOLDEN_PATHS, type GoldenHistoryFile, type GoldenPathName } from '../test/golden/paths.js';
import { assertScenariosCoverPaths, SCENARIOS } from '../test/golden/record/scenarios.js';
import { startGoldenStack } from '../test/golden/record/stack.js';
import { RELEASE_BUNDLE_FILE, releaseBundlePath, writeReleaseBundle } from '../test/golden/release-bundle.js';

/** A wrong argument: said in one line, without a stack. */
class UsageError extends Error {}

interface Args {
  only: GoldenPathName[] | undefined;
  force: boolean;
  bundleOnly: boolean;
  /** The checkout to bundle (--from), with --bundle-only; this repository by default. */
  from: string | undefined;
}

function parseArgs(argv: string[]): Args {
  let only: GoldenPathName[] | undefined;
  let force = false;
  let bundleOnly = false;
  let from: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--force') force = true;
    else if (arg === '--bundle-only') bundleOnly = true;
    else if (arg === '--from' || arg.startsWith('--from=')) {
      from = arg === '--from' ? argv[++i] : arg.slice('--from='.length);
      if (!from) throw new UsageError('--from takes the directory of a checkout (a worktree of a release)');
    } else if (arg === '--only' || arg.startsWith('--only=')) {
      const value = arg === '--only' ? argv[++i] : arg.slice('--only='.length);
      const names = (value ?? '').split(',').filter(Boolean);
      const unknown = names.filter((n) => !(GOLDEN_PATH_NAMES as string[]).includes(n));
      if (names.length === 0 || unknown.length > 0)
        throw new UsageError(
          `--only takes path names among: ${GOLDEN_PATH_NAMES.join(', ')} (got ${value ?? 'nothing'})`,
        );
      only = [...(only ?? []), ...(names as GoldenPathName[])];
    } else
      throw new UsageError(
        `unknown argument ${arg} (use --only <path>[,<path>], --force, or --bundle-only [--from <checkout>])`,
      );
  }
  if (from && !bundleOnly)
    throw new UsageError('--from goes with --bundle-only: histories are recorded from this code');
  if (only && bundleOnly) throw new UsageError('--only records histories: it does not go with --bundle-only');
  return { only, force, bundleOnly, from };
}

const root = fileURLToPath(new URL('../', import.meta.url));

function versionOf(checkout: string): string {
  return (JSON.parse(readFileSync(join(checkout, 'package.json'), 'utf8')) as { version: string }).version;
}

async function writeBundle(version: string, checkout: string): Promise<void> {
  const { file, bytes, gzipped } = await writeReleaseBundle(version, checkout);
  console.log(`  ${RELEASE_BUNDLE_FILE}: ${bytes} bytes, ${gzipped} gzipped, into ${file}`);
}

/** --bundle-only: the bundle of an existing set, from this code or from the checkout --from names. */
async function recordBundleOnly({ from, force }: Args): Promise<number> {
  const checkout = resolve(from ?? root);
  const version = versionOf(checkout);
  const dir = join(HISTORIES_DIR, version);
  if (!existsSync(dir) || !readdirSync(dir).some((f) => f.endsWith('.json'))) {
    console.error(`record-golden: no histories of ${version} in ${dir}: record them first (npm run record-golden)`);
    return 1;
  }
  if (version !== versionOf(root) && existsSync(releaseBundlePath(version)) && !force) {
    console.error(
      `record-golden: ${releaseBundlePath(version)} is the bundle of ${version}, a release that is out: ` +
        'it stands in for the build its running jobs finish on. Replace it only with --force.',
    );
    return 1;
  }
  console.log(`record-golden: the workflow bundle of ${version}, from ${checkout}`);
  await writeBundle(version, checkout);
  return 0;
}

async function main(): Promise<number> {
  const args = parseArgs(process.argv.slice(2));
  if (args.bundleOnly) return recordBundleOnly(args);
  const { only, force } = args;
  assertScenariosCoverPaths();
  const pkg = { version: versionOf(root) };
  const outDir = join(HISTORIES_DIR, pkg.version);
  const existing = existsSync(outDir) ? readdirSync(outDir).filter((f) => f.endsWith('.json')) : [];
  if (existing.length > 0 && !only && !force) {
    console.error(
      `record-golden: ${outDir} already holds ${existing.length} histories of ${pkg.version}. Bump the version in ` +
        'package.json for a release that changes workflow code, or re-record with --only <path> or --force.',
    );
    return 1;
  }
  mkdirSync(outDir, { recursive: true });
  const wanted = (name: string) => !only || (only as string[]).includes(name);
  const stack = await startGoldenStack();
  console.log(`record-golden: ${pkg.version} on Temporal Server ${stack.server}, into ${outDir}`);
  const problems: string[] = [];
  try {
    for (const scenario of SCENARIOS.filter((s) => s.names.some(wanted))) {
      stack.sandbox.reset();
      for (const run of await scenario.run(stack)) {
        if (!wanted(run.name)) continue;
        const path = GOLDEN_PATHS[run.name as GoldenPathName];
        const history = await stack.client.workflow.getHandle(run.handle.workflowId, run.runId).fetchHistory();
        const json = toGoldenJson(history);
        const ended = endingOf(json);
        const file: GoldenHistoryFile = {
          path: run.name,
          workflowType: path.workflowType,
          workflowId: run.handle.workflowId,
          recorded: { packageVersion: pkg.version, temporalServer: stack.server },
          history: json,
        };
        const text = `${JSON.stringify(file, null, 2)}\n`;
        if (ended !== path.ends) problems.push(`${run.name}: ended ${ended}, expected ${path.ends}`);
        else if (containsSecret(text, stack.secrets)) problems.push(`${run.name}: a secret appears in the history`);
        else {
          writeFileSync(join(outDir, `${run.name}.json`), text);
          console.log(`  ${run.name}: ${ended}, ${json.events.length} events, ${text.length} bytes`);
        }
      }
    }
  } finally {
    await stack.stop();
  }
  for (const p of problems) console.error(`record-golden: not written: ${p}`);
  // The code that recorded the set: the replay test replays the set against it for good.
  await writeBundle(pkg.version, root);
  return problems.length > 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    const detail = err instanceof UsageError ? err.message : err instanceof Error ? (err.stack ?? err.message) : err;
    console.error(`record-golden failed: ${String(detail)}`);
    process.exit(1);
  },
);
