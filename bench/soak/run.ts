// `npm run soak [-- --quick]`: N jobs against the sandbox under random faults, worker SIGKILLs (several
// workers on one queue), receiver restarts and one Temporal server restart; prints the figures, writes
// DIR/report.json (and RELIABILITY.md with --reliability), exits 1 when a job was lost, a video or review
// task duplicated, a spec rule broken or a secret leaked. `--seeds a,b,c` runs once per seed, one after
// the other, and writes one RELIABILITY.md: the first seed's figures and a table of every seed.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseSoakOptions, USAGE, type SoakOptions } from './options.js';
import { figures, reliabilityMarkdown, SEED_HEAD, seedRowOf, type SeedRun } from './report.js';
import { runSoak, type SoakReport } from './soak.js';

let options: SoakOptions;
try {
  options = parseSoakOptions(process.argv.slice(2));
} catch (err) {
  console.error(`soak: ${err instanceof Error ? err.message : String(err)}\n${USAGE}`);
  process.exit(2);
}

// Interrupted: exit through process.exit so the runner's exit hook kills its child processes.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));

const say = (line: string) => console.log(line);
try {
  const runs: SeedRun[] = [];
  for (const seed of options.seeds) {
    // Each seed's run in its own folder under --out (or a fresh temp folder).
    const outDir = options.outDir && options.seeds.length > 1 ? join(options.outDir, `seed-${seed}`) : options.outDir;
    if (outDir) mkdirSync(outDir, { recursive: true });
    let report: SoakReport;
    try {
      report = await runSoak({ ...options, seed, outDir }, say);
    } catch (err) {
      // One seed's run that could not finish (say, a process that never came up) is listed, not fatal.
      const error = err instanceof Error ? err.message : String(err);
      say(`soak (seed ${seed}): run failed: ${error}`);
      runs.push({ seed, error });
      continue;
    }
    writeFileSync(join(report.outDir, 'report.json'), JSON.stringify(report, null, 2));
    say('');
    for (const line of figures(report)) say(line);
    const v = report.verdict;
    for (const p of [...v.lost, ...v.duplicates, ...v.reviewDuplicates].slice(0, 20)) {
      say(
        `  ! ${p.workflowId} (${p.kind}, callbacks ${p.callbacks}${p.optedIn ? ', opted in' : ''}): expected ${p.expected}, got ${p.got}${p.detail ? `: ${p.detail}` : ''}`,
      );
    }
    for (const p of v.unconfirmed.slice(0, 20))
      say(`  ~ unconfirmed (correct) ${p.workflowId} (${p.kind}, callbacks ${p.callbacks}): ${p.detail ?? ''}`);
    for (const p of v.optedIn.problems.slice(0, 10)) say(`  ~ opted in ${p.workflowId}: ${p.detail ?? ''}`);
    for (const x of v.violations.slice(0, 20)) say(`  ! ${x.rule}: ${x.detail}`);
    for (const h of report.secrets.hits.slice(0, 20)) say(`  ! secret ${h.secret} found in ${h.source}`);
    say(`report: ${join(report.outDir, 'report.json')}`);
    say(report.ok ? `soak (seed ${seed}): OK` : `soak (seed ${seed}): FAILED`);
    runs.push({ seed, report });
  }
  if (runs.length > 1) {
    say('');
    say(SEED_HEAD.join(' | '));
    for (const r of runs) say(seedRowOf(r).join(' | '));
  }
  const first = runs.find((r): r is Extract<SeedRun, { report: SoakReport }> => 'report' in r);
  if (options.reliabilityPath && first) {
    const seedArgs = options.seeds.length > 1 ? ` --seeds ${options.seeds.join(',')}` : ` --seed ${options.seed}`;
    // The command that repeats this run: every option that changes what runs, as given.
    const workerArgs = options.workers !== 2 ? ` --workers ${options.workers}` : '';
    const command = `npm run soak --${options.quick ? ' --quick' : ''}${seedArgs}${workerArgs} --reliability RELIABILITY.md`;
    writeFileSync(
      options.reliabilityPath,
      reliabilityMarkdown(
        first.report,
        command,
        runs.filter((r) => r !== first),
      ),
    );
    say(`written: ${options.reliabilityPath}`);
  }
  const ok = runs.every((r) => 'report' in r && r.report.ok);
  say(ok ? 'soak: OK' : 'soak: FAILED');
  process.exit(ok ? 0 : 1);
} catch (err) {
  console.error(`soak: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  process.exit(1);
}
