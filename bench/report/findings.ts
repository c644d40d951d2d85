// Findings computed from the figures of one run (stored in the JSON as `notes`), so that a regenerated
// BENCHMARKS.md never carries a sentence the figures do not support.
import type { BenchResults } from '../results.js';
import { MIN_CACHED } from './targets.js';

const r1 = (v: number) => Math.round(v * 10) / 10;

export function computeFindings(r: BenchResults): string[] {
  const notes: string[] = [];
  const ours = r.runs.filter((x) => x.kind === 'ours');

  const cbRuns = ours.filter((x) => x.mode === 'callbacks' && x.callbackLatency);
  const byFallback = cbRuns.reduce((a, x) => a + x.callbackLatency!.callbacks.answeredByFallbackPoll, 0);
  const finals = cbRuns.reduce((a, x) => a + x.callbackLatency!.callbacks.final, 0);
  const reviewByFallback = cbRuns.reduce(
    (a, x) => a + (x.callbackLatency!.callbacks.reviewAnsweredByFallbackPoll ?? 0),
    0,
  );
  const sampled = cbRuns.reduce((a, x) => a + (x.historySample?.sampled ?? 0), 0);
  const raced = cbRuns.reduce((a, x) => a + (x.historySample?.reviewCallbackBeforeSubmitResult ?? 0), 0);
  if (raced > 0) {
    notes.push(
      `**Early review callbacks are kept.** In ${raced} of ${sampled} sampled histories the review callback reached the workflow before, or in the same workflow task as, the result of the review submit. ` +
        'The workflow keeps a callback naming a task id it does not know yet (src/workflows/run-state.ts); dropping it would leave the job to the fallback poll (60 s by default).',
    );
  }
  if (byFallback > 0) {
    const late = cbRuns.filter((x) => x.callbackLatency!.callbacks.answeredByFallbackPoll > 0);
    const worst = late.reduce((a, x) => Math.max(a, x.callbackLatency!.toConfirmMs.max), 0);
    const where = late
      .map(
        (x) => `${x.profile}, ${x.concurrency.toLocaleString('en-US')} jobs: latency p99 ${r1(x.latency.p99 / 1000)} s`,
      )
      .join('; ');
    const fallbackS = Math.max(...r.profiles.map((p) => (p.timing.callbackFallbackPollMs ?? 60_000) / 1000));
    notes.push(
      `**Late confirmations.** ${byFallback} of ${finals} final-state callbacks (${reviewByFallback} review, ${byFallback - reviewByFallback} video) were followed by their confirming query only after 90 % of \`callbackFallbackPollMs\` or more, at most ${r1(worst / 1000)} s later, ` +
        `all in runs whose jobs queued for a long time (${where}). ` +
        (worst / 1000 > fallbackS * 1.5
          ? `A gap far longer than the fallback (${fallbackS} s) is not the safety-net poll but the backlog of workflow and activity tasks on this server; from the request log alone the two cannot be told apart for the shorter gaps. `
          : 'From the request log alone, a backlog that long cannot be told from the safety-net poll. ') +
        'The median callback-to-query time of the same runs is in section 5.',
    );
  }

  const tuned = (config: string) => r.tuning.find((t) => t.config === config)?.run;
  const onPackage = tuned('trivial-on-package');
  const onPackageNoPreload = tuned('trivial-on-package-no-preload');
  const alone = tuned('trivial');
  if (onPackage?.cpu?.worker && alone?.cpu?.worker) {
    const without = onPackageNoPreload?.cpu?.worker
      ? `, and ${r1(onPackageNoPreload.cpu.worker.value)} ms on the same bundle without preloading (${r1(onPackageNoPreload.throughput.value)} runs/s)`
      : '';
    const ours = tuned('default');
    const oursNoPreload = tuned('no-preload');
    const jobs =
      ours?.cpu?.worker && oursNoPreload?.cpu?.worker
        ? ` For the package's own jobs (polling, ${ours.concurrency} at once): ${r1(ours.cpu.worker.value)} ms of worker CPU per job and peak RSS ${Math.round(ours.memory?.workerPeakRss?.value ?? NaN)} MiB preloaded, ` +
          `${r1(oursNoPreload.cpu.worker.value)} ms and ${Math.round(oursNoPreload.memory?.workerPeakRss?.value ?? NaN)} MiB without (${r1(ours.throughput.value)} against ${r1(oursNoPreload.throughput.value)} jobs/s).`
        : '';
    notes.push(
      `**Workflow modules are loaded once per worker thread.** With \`reuseV8Context\` the SDK evaluates a bundle's modules again for every workflow run unless they are preloaded. ` +
        `The trivial workflow took ${r1(onPackage.cpu.worker.value)} ms of worker CPU per run on the package's bundle preloaded as our worker does it (\`workflowPreloadModules\`, ${r1(onPackage.throughput.value)} runs/s)${without}, ` +
        `against ${r1(alone.cpu.worker.value)} ms on its own bundle (${r1(alone.throughput.value)} runs/s).${jobs} ` +
        'Preloading is possible because every zod schema is built on first use inside a closure (src/model/lazy.ts): the SDK deep-freezes what preloaded modules export, and zod schemas do not survive freezing. ' +
        'A worker that only sets `workflowsPath` still works; it pays the difference on every run, and after every cache eviction.',
    );
  }

  const waitDefault = r.waiting.find((w) => w.mode === 'callbacks' && w.workerConfig === r.mainWorkerConfig);
  const others = r.waiting.filter((w) => w.mode === 'callbacks' && w.workerConfig !== r.mainWorkerConfig && w.jobs > 0);
  if (waitDefault && waitDefault.jobs > 0) {
    const cache = waitDefault.maxCachedWorkflows.value;
    const m = waitDefault.perCachedWorkflow;
    const perCached = m && m.upToCached >= MIN_CACHED ? m.rssKiB : undefined;
    const budget = r.workerConfigs[waitDefault.workerConfig]?.options.maxCachedWorkflows !== undefined;
    const beyondCache = waitDefault.jobs > cache;
    let text =
      `**Memory of waiting jobs.** A waiting job holds no activity slot and makes no call, but its cached workflow costs the worker RSS` +
      (perCached !== undefined
        ? `: about ${Math.round(perCached)} KiB per cached workflow here (section 6 says of what)`
        : '') +
      `. ${budget ? `Our worker sizes its sticky cache from its memory budget (WORKER_MEMORY_BUDGET_MIB, src/config/worker-cache.ts): ${cache} workflows` : `The SDK sizes its default sticky cache from the V8 heap limit: ${cache} workflows for ${Math.round(waitDefault.heapLimit.value)} MiB`}` +
      (beyondCache
        ? `; with ${waitDefault.jobs} jobs waiting the worker held ${Math.round(waitDefault.workerRssWaiting.value)} MiB (measured), the ${waitDefault.jobs - cache} evicted ones are replayed from their history when their callback arrives.`
        : `, more than the ${waitDefault.jobs} jobs that waited (${Math.round(waitDefault.workerRssWaiting.value)} MiB).`);
    for (const o of others) {
      const def = r.workerConfigs[o.workerConfig];
      const main = r.workerConfigs[r.mainWorkerConfig];
      const how = def?.nodeArgs?.length
        ? `the same cache in a worker process started with \`${def.nodeArgs.join(' ')}\``
        : main?.nodeArgs?.length && def?.options.maxCachedWorkflows !== undefined
          ? `the same cache on Node's default heap limit (without \`${main.nodeArgs.join(' ')}\`)`
          : def?.options.maxCachedWorkflows === undefined
            ? "the SDK's own cache size"
            : `worker \`${o.workerConfig}\``;
      text += ` With ${how} (${o.maxCachedWorkflows.value} workflows) the worker held ${Math.round(o.workerRssWaiting.value)} MiB with ${o.jobs} jobs waiting (${Math.max(0, o.jobs - o.maxCachedWorkflows.value)} of them evicted).`;
    }
    if (others.length)
      text +=
        ' The cache bounds what stays in memory; V8 returns the memory of evicted workflows only when it collects them, and on its default heap limit it lets them pile up: RSS past the cache wanders above the budget by what is not yet collected. Hence the 256 MiB heap limit our worker is started with.';
    notes.push(text);
  }

  // Worker options only: the bundle comparison (no-preload) is the finding above.
  const oursTuned = r.tuning.filter((t) => t.run.kind === 'ours' && t.def.bundle === 'package');
  const base = oursTuned.find((t) => t.config === 'default');
  if (base && oursTuned.length > 1) {
    const best = oursTuned.reduce((a, b) => (b.run.throughput.value > a.run.throughput.value ? b : a));
    const gain = best.run.throughput.value / base.run.throughput.value;
    // The same configuration measured twice in this run (main table and tuning) tells the noise.
    const twin = r.runs.find(
      (x) =>
        x.kind === 'ours' &&
        x.mode === base.run.mode &&
        x.profile === base.run.profile &&
        x.concurrency === base.run.concurrency &&
        x.workerConfig === 'default',
    );
    const noise = twin
      ? Math.abs(twin.throughput.value - base.run.throughput.value) /
        Math.min(twin.throughput.value, base.run.throughput.value)
      : 0.15;
    // A difference counts only beyond twice the spread of the repeated default measurement.
    const threshold = Math.max(0.15, 2 * noise);
    const noiseText = twin
      ? ` The defaults themselves measured ${r1(twin.throughput.value)} and ${r1(base.run.throughput.value)} jobs/s in this run (${Math.round(noise * 100)} % apart).`
      : '';
    notes.push(
      gain < 1 + threshold
        ? `**Worker options:** no configuration beat the SDK defaults by more than twice the run-to-run noise (best: \`${best.config}\`, ${r1(best.run.throughput.value)} against ${r1(base.run.throughput.value)} jobs/s).${noiseText} ` +
            `The limit here is CPU, not slots or pollers: per job, ${r1(base.run.cpu?.worker?.value ?? NaN)} ms in the worker and ${r1(base.run.cpu?.server?.value ?? NaN)} ms in the Temporal dev server, on ${r.machine.cores} cores. The main figures use the defaults.`
        : `**Worker options:** \`${best.config}\` ran ${r1(best.run.throughput.value)} jobs/s against ${r1(base.run.throughput.value)} with the SDK defaults (×${r1(gain)}).${noiseText} The main figures above use \`${r.mainWorkerConfig}\`.`,
    );
  }

  for (const { profile, variants } of r.http) {
    const pool = variants.find((v) => v.variant.includes(' 32 connections'));
    const fetchV = variants.find((v) => v.variant === 'global fetch');
    if (!pool || !fetchV) continue;
    const latency = r.profiles.find((p) => p.name === profile)?.latencyMs ?? 0;
    const cap =
      latency > 0
        ? ` (with ${latency} ms responses a 32-connection pool cannot exceed ${Math.round(32 / (latency / 1000))}/s)`
        : '';
    const faster = pool.requestsPerSecond >= fetchV.requestsPerSecond ? 'the pool' : 'global fetch';
    notes.push(
      `**HTTP client, ${profile} sandbox:** the package's undici Pool of 32 connections did ${Math.round(pool.requestsPerSecond)} requests/s${cap}, global fetch ${Math.round(fetchV.requestsPerSecond)}/s, with ${pool.inFlight} in flight; ${faster} was faster. ` +
        `Client CPU per request: ${pool.cpuMsPerRequest} ms (pool) against ${fetchV.cpuMsPerRequest} ms (fetch).`,
    );
  }
  if (r.http.length > 0) {
    notes.push(
      '`VideoClient` and `ReviewClient` keep 32 connections per service by default: against a distant service a worker running more calls than that at once queues on the pool (see the pool sizes in section 7). ' +
        "Raise it with `HTTP_MAX_CONNECTIONS` (the worker) or the clients' `connections` option.",
    );
  }

  if (r.skipped.length > 0)
    notes.push(
      `${r.skipped.length} run(s) of the plan did not fit in the ${r.budget.value}-minute budget on this machine and were not made (see "Runs not made").`,
    );
  if (r.machine.shared)
    notes.push(
      `The machine was shared during the run (load average ${r.machine.loadAverageAtStart.join('/')} at the start, ${r.machine.loadAverageAtEnd?.join('/')} at the end, on ${r.machine.cores} cores).`,
    );
  return notes;
}
