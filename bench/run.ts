// `npm run bench [-- --quick] [--name N] [--only http,main,history,tuning,observability,waiting,store] [--levels 100,1000]
//   [--profiles zero,realistic] [--modes callbacks,polling] [--budget-min 85]`
// Starts its own Temporal dev server, sandbox, worker process(es) and callback receiver; logs every run
// and writes bench/results/<name>.json. BENCHMARKS.md is written by hand from a full run's JSON, and
// bench/test/benchmarks-page.test.ts checks each figure it states against that file.
//
// Order: every scenario first at the smallest scale (so that each is measured whatever the machine),
// then the larger concurrency levels and the big waiting test with what is left of the time budget.
// A run that would not fit is skipped and listed as skipped, with its estimate: never extrapolated.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startHarness, startProfileEnv, type Harness, type ProfileEnv } from './lib/harness.js';
import { describeMachine } from './lib/machine.js';
import { loadAverage } from './lib/proc.js';
import { FULL, MAIN_WORKER_CONFIG, QUICK, WORKER_CONFIGS, type Plan } from './plan.js';
import { PROFILES, type Mode, type Profile, type ProfileName } from './profiles.js';
import { fig, type BenchResults, type RunKind, type RunResult } from './results.js';
import { runHistoryIndependence } from './scenarios/history-independence.js';
import { runHttpBench } from './scenarios/http.js';
import { runOurs, runPeer, runTrivial, warmUp } from './scenarios/throughput.js';
import { runWaitingPhase } from './scenarios/waiting-phase.js';
import { runStoreBench } from './store/scenario.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const SCENARIOS = ['http', 'main', 'history', 'tuning', 'observability', 'waiting', 'store'] as const;
type Scenario = (typeof SCENARIOS)[number];
/** Kept for tearing down and writing the JSON. */
const RESERVE_MS = 20_000;

const { values: args } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    name: { type: 'string' },
    only: { type: 'string' },
    levels: { type: 'string' },
    profiles: { type: 'string' },
    modes: { type: 'string' },
    'budget-min': { type: 'string' },
  },
});

const t0 = Date.now();
function log(line: string) {
  console.log(`[bench ${((Date.now() - t0) / 1000).toFixed(0).padStart(4)} s] ${line}`);
}

/** The commit measured, `-dirty` when the work tree differed from it: what BENCHMARKS.md names. */
function measuredCommit(): string {
  const git = (...a: string[]) => execFileSync('git', a, { cwd: ROOT, encoding: 'utf8' }).trim();
  return `${git('rev-parse', 'HEAD')}${git('status', '--porcelain', '--untracked-files=no') ? '-dirty' : ''}`;
}

const describe = (r: RunResult) =>
  `${r.kind}${r.mode ? ` ${r.mode}` : ''}${r.profile ? ` ${r.profile}` : ''} x${r.concurrency}: ${r.completed}/${r.jobs} in ${r.wall.value} s = ${r.throughput.value} jobs/s, p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms` +
  (r.apiCalls ? `, ${r.apiCalls.perJob} calls/job` : '') +
  (r.historyEvents ? `, ${r.historyEvents.mean} events/job` : '') +
  (r.timedOut ? ' (CUT AT THE TIME LIMIT)' : '') +
  (r.failed ? `, ${r.failed} not completed` : '');

interface Variant {
  kind: RunKind;
  mode?: Mode;
  profile: ProfileName;
}
const variantName = (v: Variant) =>
  v.kind === 'trivial'
    ? 'trivial workflow'
    : `${v.kind === 'ours' ? 'package' : 'plain script'} ${v.mode} ${v.profile}`;

async function main() {
  const plan: Plan = { ...(args.quick ? QUICK : FULL) };
  if (args.levels) {
    plan.levels = args.levels.split(',').map(Number);
    plan.tuning = { ...plan.tuning, level: plan.levels[0]! };
    plan.observability = { ...plan.observability, level: plan.levels[0]! };
  }
  if (args.profiles) plan.profiles = args.profiles.split(',') as ProfileName[];
  if (args.modes) plan.modes = args.modes.split(',') as Mode[];
  if (args['budget-min']) plan.budgetMs = Number(args['budget-min']) * 60_000;
  const only = new Set<Scenario>(args.only ? (args.only.split(',') as Scenario[]) : SCENARIOS);
  const partial = only.size < SCENARIOS.length || Boolean(args.levels || args.profiles || args.modes);
  const name = args.name ?? (args.quick ? 'quick' : partial ? 'partial' : 'latest');
  const command = `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`;
  const deadline = t0 + plan.budgetMs - RESERVE_MS;
  // The profiles as this plan runs them (the plan may add timing input to every job).
  const profiles = Object.fromEntries(
    Object.values(PROFILES).map((p) => [p.name, { ...p, timing: { ...p.timing, ...plan.timing } }]),
  ) as Record<ProfileName, Profile>;

  log(
    `starting the Temporal dev server and bundling the workflows (${args.quick ? 'quick' : 'full'} plan${partial ? ', partial' : ''}, budget ${plan.budgetMs / 60_000} min)`,
  );
  const h: Harness = await startHarness();
  const machine = describeMachine(h.server.cliVersion);
  log(
    `Temporal ${h.server.cliVersion} at ${h.server.address}; ${machine.cores} cores; load average ${machine.loadAverageAtStart.join(' ')}`,
  );
  const results: BenchResults = {
    name,
    command,
    commit: measuredCommit(),
    quick: Boolean(args.quick),
    startedAt: new Date(t0).toISOString(),
    finishedAt: '',
    wallTime: fig(0, 's'),
    machine,
    serverCpuAvailable: h.serverPid !== undefined,
    profiles: plan.profiles.map((p) => profiles[p]),
    levels: [],
    workerConfigs: WORKER_CONFIGS,
    mainWorkerConfig: MAIN_WORKER_CONFIG,
    runs: [],
    tuning: [],
    observability: [],
    historyIndependence: [],
    waiting: [],
    http: [],
    budget: fig(plan.budgetMs / 60_000, 'min'),
    skipped: [],
    notes: [],
  };
  const failures: string[] = [];
  let seq = 0;
  const label = (what: string) => `b${process.pid}-${++seq}-${what}`;

  // One worker process per profile (and one for the trivial workflow), started on first use.
  const envs = new Map<string, Promise<ProfileEnv>>();
  const envFor = (profile: ProfileName, config: string) => {
    const key = `${profile}/${config}`;
    let env = envs.get(key);
    if (!env) {
      env = startProfileEnv(h, profiles[profile], config, WORKER_CONFIGS[config]!).then(async (e) => {
        await warmUp(h, e, plan.warmup, label(`warmup-${profile}-${config}`));
        return e;
      });
      envs.set(key, env);
    }
    return env;
  };
  const stopEnvs = async () => {
    for (const env of envs.values()) await env.then((e) => e.stop()).catch(() => undefined);
    envs.clear();
  };

  const variants: Variant[] = [];
  for (const profile of plan.profiles) {
    if (profile === plan.profiles[0]) variants.push({ kind: 'trivial', profile });
    for (const mode of [...plan.modes].reverse()) variants.push({ kind: 'ours', mode, profile });
    for (const mode of [...plan.modes].reverse()) variants.push({ kind: 'peer', mode, profile });
  }
  const lastRun = new Map<string, RunResult>();
  /** Runs one burst of a variant, or records it as skipped when its estimate does not fit. */
  const runVariant = async (v: Variant, n: number, until: number): Promise<void> => {
    const previous = lastRun.get(variantName(v));
    const estimateMs = previous ? previous.wall.value * 1000 * (n / previous.concurrency) * 1.15 + 15_000 : 0;
    if (previous && Date.now() + estimateMs > until) {
      results.skipped.push({ run: variantName(v), concurrency: n, estimate: fig(estimateMs / 1000, 's') });
      log(
        `skipped ${variantName(v)} x${n}: estimated ${(estimateMs / 1000).toFixed(0)} s, ${((until - Date.now()) / 1000).toFixed(0)} s left`,
      );
      return;
    }
    const timeoutMs = Math.max(30_000, Math.min(plan.runTimeoutMs(n), until - Date.now()));
    const opts = {
      label: label(`${v.kind}-${v.mode ?? ''}-${v.profile}-${n}`),
      concurrency: n,
      timeoutMs,
      historySample: plan.historySample,
    };
    let r: RunResult;
    try {
      if (v.kind === 'trivial') r = await runTrivial(h, await envFor(v.profile, 'trivial'), opts);
      else if (v.kind === 'ours') r = await runOurs(h, await envFor(v.profile, MAIN_WORKER_CONFIG), v.mode!, opts);
      else r = await runPeer(await envFor(v.profile, MAIN_WORKER_CONFIG), v.mode!, opts);
    } catch (err) {
      // One broken run must not cost the figures of all the others.
      const message = `${variantName(v)} x${n} failed: ${err instanceof Error ? err.message : String(err)}`;
      log(message);
      failures.push(message);
      return;
    }
    log(describe(r));
    results.runs.push(r);
    if (!results.levels.includes(n)) results.levels.push(n);
    if (!r.timedOut && r.completed > 0) lastRun.set(variantName(v), r);
  };

  /** A scenario that throws is reported as failed; the others still run and the JSON is still written. */
  const phase = async (name: string, fn: () => Promise<void>) => {
    try {
      await fn();
    } catch (err) {
      const message = `${name} failed: ${err instanceof Error ? err.message : String(err)}`;
      log(message);
      failures.push(message);
    }
  };

  try {
    if (only.has('http'))
      await phase('scenario 7 (HTTP client)', async () => {
        for (const p of plan.profiles) {
          log(
            `scenario 7: HTTP client against the ${p} sandbox (${plan.http.seconds} s per client, ${plan.http.inFlight} in flight)`,
          );
          const env = await envFor(p, MAIN_WORKER_CONFIG);
          const variantsHttp = await runHttpBench(env, plan.http);
          for (const x of variantsHttp)
            log(
              `  ${x.variant}: ${x.requestsPerSecond} req/s, p50 ${x.latencyMs.p50} ms, p99 ${x.latencyMs.p99} ms, ${x.errors} errors`,
            );
          results.http.push({ profile: p, variants: variantsHttp });
        }
      });

    const [first, ...higher] = plan.levels;
    if (only.has('main') && first !== undefined) {
      log(`scenarios 1-5 at ${first} concurrent jobs`);
      for (const v of variants) await runVariant(v, first, deadline);
    }

    if (only.has('history'))
      await phase('scenario 4 (history against time)', async () => {
        const hi = plan.historyIndependence;
        const env = await envFor('realistic', MAIN_WORKER_CONFIG);
        log(`scenario 4: history events against review/generation time (x1 and x${hi.longFactor})`);
        for (const mode of plan.modes) {
          for (const factor of [1, hi.longFactor]) {
            const r = await runHistoryIndependence(h, env, {
              label: label(`hist-${mode}-x${factor}`),
              jobs: hi.jobs,
              mode,
              reviewMs: hi.short.reviewMs * factor,
              videoMs: hi.short.videoMs * factor,
              timeoutMs: 120_000 + hi.short.videoMs * factor * 2,
            });
            log(
              `  ${mode}, review ${r.reviewMs} ms, video ${r.videoMs} ms: ${r.apiCallsPerJob.value} calls/job, events/job ${r.historyEvents.min}-${r.historyEvents.max}`,
            );
            results.historyIndependence.push(r);
          }
        }
      });

    if (only.has('tuning'))
      await phase('tuning', async () => {
        const t = plan.tuning;
        for (const config of t.configs) {
          const env = await envFor(t.profile, config);
          for (const mode of t.modes) {
            log(`tuning: worker config '${config}', ${mode}, ${t.level} jobs (${t.profile})`);
            const run = await runOurs(h, env, mode, {
              label: label(`tune-${config}-${mode}`),
              concurrency: t.level,
              timeoutMs: Math.max(30_000, Math.min(plan.runTimeoutMs(t.level), deadline - Date.now())),
            });
            log(describe(run));
            results.tuning.push({ config, def: WORKER_CONFIGS[config]!, run });
          }
          if (config !== MAIN_WORKER_CONFIG) {
            await (await env).stop();
            envs.delete(`${t.profile}/${config}`);
          }
        }
        // What loading the package's workflow modules costs every workflow run: the trivial workflow on
        // the package's bundle (preloaded as our worker does it, and not), against the trivial-only bundle.
        for (const config of ['trivial-on-package', 'trivial-on-package-no-preload']) {
          const env = await envFor(t.profile, config);
          const run = await runTrivial(h, env, {
            label: label(`tune-${config}`),
            concurrency: t.level,
            timeoutMs: plan.runTimeoutMs(t.level),
          });
          log(`trivial workflow on the package's bundle (${config}): ${describe(run)}`);
          results.tuning.push({ config, def: WORKER_CONFIGS[config]!, run });
          await (await env).stop();
          envs.delete(`${t.profile}/${config}`);
        }
        const trivialRef = await envFor(t.profile, 'trivial');
        const ref = await runTrivial(h, trivialRef, {
          label: label('tune-trivial-only'),
          concurrency: t.level,
          timeoutMs: plan.runTimeoutMs(t.level),
        });
        log(`trivial workflow on its own bundle: ${describe(ref)}`);
        results.tuning.push({ config: 'trivial', def: WORKER_CONFIGS.trivial!, run: ref });
      });

    if (only.has('observability'))
      await phase('observability cost', async () => {
        const o = plan.observability;
        for (let round = 1; round <= o.rounds; round++) {
          // Alternating order: a drift of the machine during the phase does not favour one config.
          const order = round % 2 === 1 ? o.configs : [...o.configs].reverse();
          for (const config of order) {
            const env = await envFor(o.profile, config);
            log(`observability: worker config '${config}', ${o.mode}, ${o.level} jobs (${o.profile}), round ${round}`);
            const run = await runOurs(h, env, o.mode, {
              label: label(`obs-${config}-${round}`),
              concurrency: o.level,
              timeoutMs: Math.max(30_000, Math.min(plan.runTimeoutMs(o.level), deadline - Date.now())),
            });
            log(describe(run));
            results.observability!.push({ config, def: WORKER_CONFIGS[config]!, run, round });
            // One worker process at a time: an idle one still polls, and would tax the one measured.
            await env.stop();
            envs.delete(`${o.profile}/${config}`);
          }
        }
        results.otlpReceived = h.otlp.received();
        log(`observability: the OTLP sink received ${results.otlpReceived.requests} export requests`);
      });

    // Scale up: the rest of the budget, shared between the larger levels and the big waiting test, which
    // keeps at least its minimum (the 10,000 waiting jobs of the full plan): larger levels are skipped first.
    const left = deadline - Date.now();
    const waitingMs = only.has('waiting') ? Math.min(left, Math.max(plan.waitingMinMs, left * plan.waitingShare)) : 0;
    const scaleUntil = deadline - waitingMs;
    if (only.has('main')) {
      for (const n of higher) {
        log(
          `scenarios 1-5 at ${n} concurrent jobs (${((scaleUntil - Date.now()) / 1000).toFixed(0)} s left for larger levels)`,
        );
        for (const v of variants) await runVariant(v, n, scaleUntil);
      }
    }
    await stopEnvs();

    if (only.has('waiting'))
      await phase('scenario 6 (waiting jobs)', () =>
        runWaitingPhase(h, {
          plan,
          profile: profiles.zero,
          deadline,
          label,
          log,
          record: (w) => results.waiting.push(w),
        }),
      );
    // 1 GiB through VIDEO_STORE (bench/store/): the full plan only; figures in bench/results/store.json.
    if (only.has('store') && !args.quick) await phase('store (1 GiB)', () => runStoreBench(log));
  } finally {
    await stopEnvs().catch(() => undefined);
    await h.stop();
  }

  results.levels.sort((a, b) => a - b);
  results.machine.loadAverageAtEnd = loadAverage();
  // Judged at the start only: at the end the load is the benchmark's own (dev server, worker, sandbox).
  results.machine.shared = results.machine.loadAverageAtStart[0] > results.machine.cores * 0.75;
  results.finishedAt = new Date().toISOString();
  results.wallTime = fig((Date.now() - t0) / 1000, 's');
  results.notes = failures.map((f) => `**Run failed:** ${f}`);
  const json = `${ROOT}bench/results/${name}.json`;
  writeFileSync(json, `${JSON.stringify(results, null, 2)}\n`);
  log(`wrote ${json.replace(ROOT, '')} (${results.wallTime.value} s)`);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exit(1);
  },
);
