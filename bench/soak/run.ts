// `npm run soak [-- --quick]`: N jobs against the sandbox under random faults, worker SIGKILLs, receiver
// restarts and one Temporal server restart; prints the figures, writes DIR/report.json (and RELIABILITY.md
// with --reliability), exits 1 when a job was lost, a task duplicated, a spec rule broken or a secret leaked.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseSoakOptions, USAGE } from './options.js';
import { figures, reliabilityMarkdown } from './report.js';
import { runSoak } from './soak.js';

let options;
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
  const report = await runSoak(options, say);
  writeFileSync(join(report.outDir, 'report.json'), JSON.stringify(report, null, 2));
  say('');
  for (const line of figures(report)) say(line);
  for (const p of [...report.verdict.lost, ...report.verdict.duplicates, ...report.verdict.ambiguous].slice(0, 20)) {
    say(`  ! ${p.workflowId} (${p.kind}, callbacks ${p.callbacks}): expected ${p.expected}, got ${p.got}${p.detail ? `: ${p.detail}` : ''}`);
  }
  for (const v of report.verdict.violations.slice(0, 20)) say(`  ! ${v.rule}: ${v.detail}`);
  for (const h of report.secrets.hits.slice(0, 20)) say(`  ! secret ${h.secret} found in ${h.source}`);
  say(`report: ${join(report.outDir, 'report.json')}`);
  if (options.reliabilityPath) {
    const command = `npm run soak${options.quick ? ' -- --quick' : ''}`;
    writeFileSync(options.reliabilityPath, reliabilityMarkdown(report, command));
    say(`written: ${options.reliabilityPath}`);
  }
  say(report.ok ? 'soak: OK' : 'soak: FAILED');
  process.exit(report.ok ? 0 : 1);
} catch (err) {
  console.error(`soak: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  process.exit(1);
}
