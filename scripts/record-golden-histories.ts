// `npm run record-golden [-- --only <path>[,<path>...]] [-- --force]`: records the golden histories of
// this release into test/golden/histories/<package.json version>/<path>.json (docs/upgrading.md). It starts
// its own Temporal dev server, the sandbox and a worker on free ports, drives every path of
// test/golden/paths.ts, and writes a run only when it ended as its path says and holds no secret.
// A version folder that already holds histories is never overwritten without --only or --force: bump the
// version first, so the histories of running jobs of the previous release stay in the replay test.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { containsSecret, endingOf, HISTORIES_DIR, toGoldenJson } from '../test/golden/history-file.js';
import { GOLDEN_PATH_NAMES, GOLDEN_PATHS, type GoldenHistoryFile, type GoldenPathName } from '../test/golden/paths.js';
import { assertScenariosCoverPaths, SCENARIOS } from '../test/golden/record/scenarios.js';
import { startGoldenStack } from '../test/golden/record/stack.js';

/** A wrong argument: said in one line, without a stack. */
class UsageError extends Error {}

function parseArgs(argv: string[]): { only: GoldenPathName[] | undefined; force: boolean } {
  let only: GoldenPathName[] | undefined;
  let force = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--force') force = true;
    else if (arg === '--only' || arg.startsWith('--only=')) {
      const value = arg === '--only' ? argv[++i] : arg.slice('--only='.length);
      const names = (value ?? '').split(',').filter(Boolean);
      const unknown = names.filter((n) => !(GOLDEN_PATH_NAMES as string[]).includes(n));
      if (names.length === 0 || unknown.length > 0)
        throw new UsageError(
          `--only takes path names among: ${GOLDEN_PATH_NAMES.join(', ')} (got ${value ?? 'nothing'})`,
        );
      only = [...(only ?? []), ...(names as GoldenPathName[])];
    } else throw new UsageError(`unknown argument ${arg} (use --only <path>[,<path>] or --force)`);
  }
  return { only, force };
}

async function main(): Promise<number> {
  const { only, force } = parseArgs(process.argv.slice(2));
  assertScenariosCoverPaths();
  const pkg = JSON.parse(readFileSync(fileURLToPath(new URL('../package.json', import.meta.url)), 'utf8')) as {
    version: string;
  };
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
