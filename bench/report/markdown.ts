// BENCHMARKS.md, generated from one results JSON: every table below comes from the same run.
import type { BenchResults, RunResult, SummaryFigure } from '../results.js';
import type { Mode, ProfileName } from '../profiles.js';
import { costSection as billableSection, meanCost } from './cost.js';
import { cacheMemoryText } from './memory.js';
import { notifyCostSection } from './notify-cost.js';
import { quotaSectionFromFile } from './quota-section.js';
import { observabilitySection } from './observability.js';
import { targetsSection } from './targets.js';

const n = (v: number | undefined, digits = 1): string => {
  if (v === undefined || !Number.isFinite(v)) return '–';
  if (Math.abs(v) >= 100) return Math.round(v).toLocaleString('en-US');
  return v.toLocaleString('en-US', { maximumFractionDigits: digits });
};
const sec = (ms: number | undefined) => (ms === undefined || !Number.isFinite(ms) ? '–' : `${n(ms / 1000, 2)} s`);
const pct = (ratio: number) => (Number.isFinite(ratio) ? `${n(ratio * 100, 0)} %` : '–');
const mib = (bytes: number) => `${n(bytes / 2 ** 30, 1)} GiB`;

function table(headers: string[], rows: string[][]): string {
  if (rows.length === 0) return '_Not measured in this run._\n';
  return [
    `| ${headers.join(' | ')} |`,
    `|${headers.map((h) => (h.startsWith('#') ? '---:' : '---')).join('|')}|`,
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ]
    .join('\n')
    .replace(/\| #/g, '| ')
    .concat('\n');
}

const variant = (r: RunResult) =>
  r.kind === 'trivial'
    ? 'trivial workflow'
    : `${r.kind === 'ours' ? 'package' : 'plain script'}, ${r.mode}, ${r.profile}`;

const lat = (s: SummaryFigure | undefined) => (s && s.count ? `${sec(s.p50)} / ${sec(s.p95)} / ${sec(s.p99)}` : '–');

function find(
  r: BenchResults,
  kind: RunResult['kind'],
  n: number,
  mode?: Mode,
  profile?: ProfileName,
): RunResult | undefined {
  return r.runs.find(
    (x) =>
      x.kind === kind &&
      x.concurrency === n &&
      (mode === undefined || x.mode === mode) &&
      (profile === undefined || x.profile === profile),
  );
}

const status = (r: RunResult) =>
  `${r.completed}/${r.jobs}${r.timedOut ? ' (cut at the time limit)' : ''}${r.failed ? `, ${r.failed} not completed` : ''}`;

function machineSection(r: BenchResults): string {
  const m = r.machine;
  const rows = [
    ['Cores', `${m.cores} × ${m.cpuModel}`],
    ['Memory', mib(m.memoryBytes)],
    ['OS', `${m.platform} ${m.kernel}`],
    ['Node', m.node],
    ['Temporal CLI (dev server)', m.temporalCli],
    ['Temporal TypeScript SDK', m.temporalSdk],
    ['undici', m.undici],
    ['Load average (1/5/15 min) at start', m.loadAverageAtStart.join(' / ')],
    ["Load average at end (the benchmark's own load)", m.loadAverageAtEnd?.join(' / ') ?? '–'],
    ['Run', `${r.startedAt} → ${r.finishedAt} (${n(r.wallTime.value / 60, 1)} min)`],
  ];
  const shared = m.shared
    ? `\n> **The machine was shared while this ran** (1-minute load average above 3/4 of the core count when it started: other processes' work). Absolute figures are lower and noisier than on an idle machine; the ratios compare variants measured minutes apart under the same conditions.\n`
    : '';
  return `${table(['', ''], rows)}${shared}`;
}

function profilesSection(r: BenchResults): string {
  return r.profiles
    .map(
      (p) =>
        `- **${p.name}**: ${p.description}. Timing input of every job: \`${JSON.stringify(p.timing)}\` (the rest are the package defaults).`,
    )
    .join('\n');
}

function throughputSection(r: BenchResults): string {
  const rows = r.runs
    .filter((x) => x.kind === 'ours' || x.kind === 'trivial')
    .sort((a, b) => a.concurrency - b.concurrency)
    .map((x) => [
      `#${n(x.concurrency)}`,
      variant(x),
      `#${n(x.throughput.value, 1)}`,
      `#${n(x.wall.value, 1)} s`,
      lat(x.latency),
      status(x),
    ]);
  return table(
    [
      '#Concurrent jobs',
      'Variant',
      '#Jobs/s',
      '#Wall (first start → last result)',
      'Latency p50 / p95 / p99',
      'Completed',
    ],
    rows,
  );
}

function ratioSection(r: BenchResults, against: 'trivial' | 'peer'): string {
  const rows: string[][] = [];
  for (const level of r.levels) {
    for (const p of r.profiles.map((x) => x.name)) {
      for (const mode of ['callbacks', 'polling'] as Mode[]) {
        const ours = find(r, 'ours', level, mode, p);
        const other = against === 'trivial' ? find(r, 'trivial', level) : find(r, 'peer', level, mode, p);
        if (!ours || !other) continue;
        const row = [
          `#${n(level)}`,
          `${mode}, ${p}`,
          `#${n(ours.throughput.value)}`,
          `#${n(other.throughput.value)}`,
          `#${pct(ours.throughput.value / other.throughput.value)}`,
        ];
        if (against === 'peer')
          row.push(
            `#${n(ours.apiCalls?.perJob, 2)}`,
            `#${n(other.apiCalls?.perJob, 2)}`,
            lat(ours.latency),
            lat(other.latency),
          );
        rows.push(row);
      }
    }
  }
  return against === 'trivial'
    ? table(
        ['#Concurrent jobs', 'Package run', '#Package jobs/s', '#Trivial workflows/s', '#Package as share of trivial'],
        rows,
      )
    : table(
        [
          '#Concurrent jobs',
          'Mode, profile',
          '#Package jobs/s',
          '#Plain script jobs/s',
          '#Package as share of script',
          '#Package calls/job',
          '#Script calls/job',
          'Package latency p50/p95/p99',
          'Script latency p50/p95/p99',
        ],
        rows,
      );
}

function callsSection(r: BenchResults): string {
  const rows = r.runs
    .filter((x) => x.kind === 'ours')
    .sort((a, b) => a.concurrency - b.concurrency)
    .map((x) => {
      const ops = x.apiCalls?.byOperation ?? {};
      const per = (op: string) => n((ops[op] ?? 0) / Math.max(1, x.completed), 2);
      return [
        `#${n(x.concurrency)}`,
        `${x.mode}, ${x.profile}`,
        `#${n(x.apiCalls?.perJob, 2)}`,
        `${per('review.submitAsync')} / ${per('review.query')} / ${per('video.create')} / ${per('video.get')}`,
        `#${n(x.historyEvents?.mean, 1)} (${n(x.historyEvents?.min, 0)}–${n(x.historyEvents?.max, 0)})`,
        `#${n(x.activitySlots?.meanRunning.value, 2)}`,
        `#${n(x.activitySlots?.meanJobsInFlight.value, 0)}`,
        `#${n(x.activitySlots?.perJobInFlight.value, 4)}`,
      ];
    });
  return table(
    [
      '#Concurrent jobs',
      'Mode, profile',
      '#API calls/job',
      'submit / review query / create / video get per job',
      '#History events/job (min–max)',
      '#Activities executing (mean)',
      '#Jobs in flight (mean)',
      '#Activities per job in flight',
    ],
    rows,
  );
}

function historyTypesSection(r: BenchResults): string {
  const sample = r.runs.filter((x) => x.kind === 'ours' && x.historySample && x.historySample.sampled > 0);
  const seen = new Set<string>();
  const picked = sample.filter((x) => {
    const k = `${x.mode} ${x.profile}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
  if (picked.length === 0) return '';
  const types = [...new Set(picked.flatMap((x) => Object.keys(x.historySample!.byType)))].sort();
  const rows = types.map((t) => [t, ...picked.map((x) => `#${n(x.historySample!.byType[t] ?? 0, 1)}`)]);
  rows.push(['**total**', ...picked.map((x) => `#**${n(x.historySample!.eventsPerJob.mean, 1)}**`)]);
  return `History events by type (mean per job over ${picked.map((x) => x.historySample!.sampled).join('/')} sampled histories):\n\n${table(['Event type', ...picked.map((x) => `#${x.mode}, ${x.profile}`)], rows)}`;
}

function independenceSection(r: BenchResults): string {
  const rows = r.historyIndependence.map((x) => [
    x.mode,
    `#${sec(x.reviewMs)}`,
    `#${sec(x.videoMs)}`,
    `#${x.jobs}`,
    `#${n(x.apiCallsPerJob.value, 2)}`,
    `#${n(x.historyEvents.min, 0)}–${n(x.historyEvents.max, 0)} (mean ${n(x.historyEvents.mean, 1)})`,
  ]);
  return table(['Mode', '#Review takes', '#Generation takes', '#Jobs', '#API calls/job', '#History events/job'], rows);
}

function waitingSection(r: BenchResults): string {
  const rows = r.waiting.map((w) => [
    `${w.mode === 'callbacks' ? 'waiting for their review callback' : `polling a long generation every ${sec(w.pollIntervalMs?.value)}`} (worker \`${w.workerConfig}\`)`,
    `#${n(w.jobs)}${w.jobs < w.target ? ` of ${n(w.target)} (time budget)` : ''}`,
    `#${n(w.workerRssIdle.value, 0)} MiB`,
    `#${n(w.workerRssWaiting.value, 0)} MiB`,
    `#${n(w.rssSlope.value, 1)} KiB`,
    `#${n(w.cachedWorkflows.value)}`,
    `#${n(w.runningActivities.mean.value, 3)} / ${n(w.runningActivities.max.value, 0)}`,
    `#${n(w.runningActivities.zeroShare.value, 1)} %`,
    `#${n(w.apiCallsDuringWindow.value)} in ${n(w.window.value)} s`,
    `#${n(w.rampSeconds.value, 0)} s`,
  ]);
  return table(
    [
      'Jobs are',
      '#Jobs waiting',
      '#Worker RSS idle',
      '#Worker RSS while they wait',
      '#RSS per waiting job (slope)',
      '#Workflows in the worker cache',
      '#Activities executing mean / max',
      '#Samples with 0 executing',
      '#API calls in the window',
      '#Time to get them all waiting',
    ],
    rows,
  );
}

function memorySection(r: BenchResults): string {
  const runs = r.waiting.filter((w) => w.mode === 'callbacks');
  if (runs.length === 0) return '_Not measured in this run._\n';
  const parts: string[] = [];
  for (const w of runs) {
    const rows = w.checkpoints.map((c) => [
      `#${n(c.waitingJobs)}`,
      `#${n(c.rssMiB, 0)} MiB`,
      `#${n(c.cachedWorkflows)}`,
      `#${n(c.atSeconds, 0)} s`,
    ]);
    const cache = w.maxCachedWorkflows?.value;
    const flags = r.workerConfigs[w.workerConfig]?.nodeArgs?.join(' ');
    const sized = r.workerConfigs[w.workerConfig]?.options.maxCachedWorkflows
      ? "our worker's default, from its memory budget"
      : `the SDK's default for a ${n((w.heapLimit?.value ?? NaN) / 1024, 1)} GiB V8 heap`;
    const head = `**Worker \`${w.workerConfig}\`**${flags ? ` (\`${flags}\`)` : ''}: sticky cache ${n(cache)} workflows (${sized}); idle RSS ${n(w.workerRssIdle.value, 0)} MiB.`;
    let tail: string;
    if (w.jobs >= w.target)
      tail = `With all ${n(w.target)} jobs waiting the worker's RSS was **${n(w.workerRssWaiting.value, 0)} MiB**.`;
    else if (w.target >= 10_000 && cache !== undefined && w.jobs > cache) {
      // Past the cache, evicted workflows leave memory: the checkpoints beyond it are what more jobs cost.
      const beyond = w.checkpoints.filter((c) => c.waitingJobs > cache).map((c) => c.rssMiB);
      tail =
        `**${n(w.target)} waiting jobs did not fit in the time budget on this machine**: ${n(w.jobs)} were reached (RSS ${n(w.workerRssWaiting.value, 0)} MiB), more than the sticky cache holds. ` +
        `Beyond ${n(cache)} waiting jobs the RSS stayed between ${n(Math.min(...beyond), 0)} and ${n(Math.max(...beyond), 0)} MiB: the evicted workflows leave memory and are replayed from their history when their callback arrives, ` +
        `so ${n(w.target)} waiting jobs would hold about the same — expected, not measured.`;
    } else if (w.target >= 10_000 && cache !== undefined) {
      const cached = Math.min(w.target, cache);
      const est = w.workerRssIdle.value + (w.rssSlope.value / 1024) * cached;
      tail =
        `**${n(w.target)} waiting jobs did not fit in the time budget on this machine**: ${n(w.jobs)} were reached (RSS ${n(w.workerRssWaiting.value, 0)} MiB). ` +
        `RSS grew by ${n(w.rssSlope.value, 0)} KiB per waiting job, and only cached workflows stay in memory: with ${n(w.target)} waiting, ${n(cached)} would be cached, ` +
        `so about **${n(est, 0)} MiB** — an extrapolation from the measured slope, not a measurement.`;
    } else
      tail = `${n(w.jobs)} of ${n(w.target)} jobs were reached in the time budget (RSS ${n(w.workerRssWaiting.value, 0)} MiB).`;
    parts.push(
      `${head}\n\n${table(['#Jobs waiting', '#Worker RSS', '#Cached workflows', '#Reached after'], rows)}\n${tail}\n\n${cacheMemoryText(w, n)}`,
    );
  }
  return parts.join('\n');
}

function skippedSection(r: BenchResults): string {
  if (r.skipped.length === 0) return 'Every run of the plan fitted in the budget.\n';
  const rows = r.skipped.map((x) => [x.run, `#${n(x.concurrency)}`, `#${n(x.estimate.value, 0)} s`]);
  return `These runs of the plan were **not made**: at the rate measured at the level below, they would not have fitted in the ${n(r.budget.value)}-minute budget on this machine. No figure is given for them.\n\n${table(['Run', '#Concurrent jobs', '#Estimated wall time'], rows)}`;
}

function callbackLatencySection(r: BenchResults): string {
  const rows = r.runs
    .filter((x) => x.mode === 'callbacks' && x.callbackLatency && x.callbackLatency.toConfirmMs.count > 0)
    .sort((a, b) => a.concurrency - b.concurrency)
    .map((x) => {
      const c = x.callbackLatency!;
      const ms = (s: SummaryFigure | typeof c.toConfirmMs) =>
        s.count ? `${n(s.p50, 0)} / ${n(s.p95, 0)} / ${n(s.p99, 0)}` : '–';
      return [
        `#${n(x.concurrency)}`,
        `${x.kind === 'ours' ? 'package' : 'plain script'}, ${x.profile}`,
        `#${ms(c.toConfirmMs)}`,
        `#${ms(c.reviewToCreateMs)}`,
        `#${c.callbacks.final}`,
        `#${c.callbacks.answeredByFallbackPoll ?? 0}`,
        `#${c.callbacks.notDelivered}`,
      ];
    });
  return table(
    [
      '#Concurrent jobs',
      'Who',
      '#Callback → confirming query, ms p50 / p95 / p99',
      '#Review callback → create, ms p50 / p95 / p99',
      '#Final-state callbacks',
      '#Next query ≥ 0.9 × fallback later',
      '#Not delivered',
    ],
    rows,
  );
}

function httpSection(r: BenchResults): string {
  return r.http
    .map(({ profile, variants }) => {
      const rows = variants.map((v) => [
        v.variant,
        `#${n(v.requestsPerSecond, 0)}`,
        `#${n(v.latencyMs.p50, 1)} / ${n(v.latencyMs.p99, 1)}`,
        `#${n(v.cpuMsPerRequest, 3)}`,
        `#${v.errors}`,
      ]);
      const first = variants[0];
      return `**${profile} sandbox** (${first ? `${first.inFlight} requests in flight, each client measured for about ${n(first.seconds, 0)} s` : ''}):\n\n${table(['Client', '#Requests/s', '#Latency p50 / p99, ms', '#Client CPU ms/request', '#Errors'], rows)}`;
    })
    .join('\n');
}

function tuningSection(r: BenchResults): string {
  const rows = r.tuning.map((t) => [
    `\`${t.config}\`${t.config === r.mainWorkerConfig ? ' (used above)' : ''}`,
    `bundle \`${t.def.bundle}\`, options \`${JSON.stringify(t.def.options)}\``,
    t.run.kind === 'trivial'
      ? `trivial workflow, ${n(t.run.concurrency)} runs`
      : `package, ${t.run.mode}, ${t.run.profile}, ${n(t.run.concurrency)} jobs`,
    `#${n(t.run.throughput.value, 1)}`,
    lat(t.run.latency),
    `#${n(t.run.cpu?.worker?.value, 1)}`,
    `#${n(t.run.cpu?.server?.value, 1)}`,
    `#${n(t.run.memory?.workerPeakRss?.value, 0)} MiB`,
    status(t.run),
  ]);
  return table(
    [
      'Worker config',
      'Bundle and worker options',
      'Run',
      '#Jobs/s',
      'Latency p50 / p95 / p99',
      '#Worker CPU ms/job',
      '#Server CPU ms/job',
      '#Worker peak RSS',
      'Completed',
    ],
    rows,
  );
}

function baselineSection(r: BenchResults): string {
  const b = r.baseline;
  if (!b) return '';
  const val = (f: { value: number; unit: string } | null) => (f ? `${n(f.value, 2)} ${f.unit}` : '–');
  const change = (before: { value: number } | null, after: { value: number } | null) =>
    before && after && before.value !== 0
      ? `${after.value >= before.value ? '+' : '−'}${n(Math.abs(after.value / before.value - 1) * 100, 0)} %`
      : '–';
  const rows = b.rows.map((x) => [x.figure, `#${val(x.before)}`, `#${val(x.after)}`, `#${change(x.before, x.after)}`]);
  return `### Across runs: before and after the code changes

The same figures from the previous full run (\`${b.file}\`, started ${b.startedAt}) and from this one. Changed in
between: ${b.change}. The two runs are minutes or hours apart on a machine that may have been shared, so
read only large differences.

${table(['Figure', '#Before', '#After', '#Change'], rows)}`;
}

function costSection(r: BenchResults): string {
  const rows = r.runs
    .filter((x) => x.kind !== 'trivial')
    .sort((a, b) => a.concurrency - b.concurrency)
    .map((x) => [
      `#${n(x.concurrency)}`,
      variant(x),
      `#${n(x.apiCalls?.perJob, 2)}`,
      `#${n(x.cpu?.worker?.value ?? x.cpu?.peer?.value, 1)}`,
      `#${n(x.cpu?.server?.value, 1)}`,
      `#${n(x.cpu?.harness?.value, 1)}`,
      `#${n(x.memory?.workerPeakRss?.value ?? x.memory?.peerPeakRss?.value, 0)} MiB`,
    ]);
  return table(
    [
      '#Concurrent jobs',
      'Variant',
      '#API calls/job',
      '#Worker (or script) CPU ms/job',
      '#Temporal server CPU ms/job',
      '#Sandbox + receiver + client CPU ms/job',
      '#Peak RSS of worker (or script)',
    ],
    rows,
  );
}

/** Sentences computed from the figures: what a reader should take away, without hand-written numbers. */
function headline(r: BenchResults): string {
  const lines: string[] = [];
  const cb = r.runs.filter((x) => x.kind === 'ours' && x.mode === 'callbacks' && x.apiCalls);
  if (cb.length) {
    const per = cb.map((x) => x.apiCalls!.perJob);
    lines.push(
      `- **API calls per job with callbacks: ${n(Math.min(...per), 2)}${Math.max(...per) !== Math.min(...per) ? `–${n(Math.max(...per), 2)}` : ''}** over ${cb.length} runs (the design's four: review submit, review query, create, task query).`,
    );
    const stalled = cb.reduce((a, x) => a + (x.callbackLatency?.callbacks.answeredByFallbackPoll ?? 0), 0);
    const finals = cb.reduce((a, x) => a + (x.callbackLatency?.callbacks.final ?? 0), 0);
    if (stalled)
      lines.push(
        `- ${stalled} of ${finals} final-state callbacks were followed by their confirming query only after 90 % of \`callbackFallbackPollMs\` or more (see Findings, "Late confirmations").`,
      );
  }
  const cbCost = meanCost(r, 'callbacks');
  const pollCost = meanCost(r, 'polling');
  if (cbCost || pollCost)
    lines.push(
      `- **Billable Temporal actions per job: ${cbCost ? `${n(cbCost.total, 1)} with callbacks` : ''}${cbCost && pollCost?.beyondPolls !== undefined ? '; ' : ''}${pollCost?.beyondPolls !== undefined ? `${n(pollCost.beyondPolls, 1)} polling, plus one per poll` : ''}** (mean over the runs; by kind in section 4).`,
    );
  const waiting = r.waiting.find((w) => w.mode === 'callbacks');
  if (waiting)
    lines.push(
      `- **Activity slots held by waiting jobs: ${n(waiting.runningActivities.max.value, 0)}** (most activities executing at any sample while ${n(waiting.jobs)} jobs waited for their review callback; polling jobs hold a slot only during each query: ${r.waiting.find((w) => w.mode === 'polling') ? `mean ${n(r.waiting.find((w) => w.mode === 'polling')!.runningActivities.mean.value, 3)} executing for ${n(r.waiting.find((w) => w.mode === 'polling')!.jobs)} waiting jobs` : 'not measured'}).`,
    );
  if (r.historyIndependence.length) {
    const byMode = (m: Mode) => r.historyIndependence.filter((x) => x.mode === m);
    for (const m of ['callbacks', 'polling'] as Mode[]) {
      const xs = byMode(m);
      if (xs.length < 2) continue;
      const means = xs.map(
        (x) => `${n(x.historyEvents.mean, 1)} events with review ${sec(x.reviewMs)} / generation ${sec(x.videoMs)}`,
      );
      lines.push(
        `- **History events per job (${m})**: ${means.join('; ')} — independent of how long review and generation take.`,
      );
    }
  }
  // Ratios at the highest level each package variant completed (a run cut at its time limit is not a
  // rate), against the yardsticks at that level.
  for (const p of r.profiles.map((x) => x.name)) {
    for (const mode of ['callbacks', 'polling'] as Mode[]) {
      const levels = r.runs
        .filter((x) => x.kind === 'ours' && x.mode === mode && x.profile === p && x.completed > 0 && !x.timedOut)
        .map((x) => x.concurrency);
      if (levels.length === 0) continue;
      const level = Math.max(...levels);
      const ours = find(r, 'ours', level, mode, p)!;
      const triv = find(r, 'trivial', level);
      const peer = find(r, 'peer', level, mode, p);
      const parts = [`**${n(ours.throughput.value)} jobs/s**`];
      if (triv)
        parts.push(
          `**${pct(ours.throughput.value / triv.throughput.value)}** of the trivial workflow's ${n(triv.throughput.value)}/s`,
        );
      if (peer)
        parts.push(
          `**${pct(ours.throughput.value / peer.throughput.value)}** of the plain script's ${n(peer.throughput.value)}/s`,
        );
      lines.push(`- Package, ${mode}, ${p}, ${n(level)} concurrent jobs: ${parts.join(', ')}.`);
    }
  }
  return lines.join('\n');
}

function findings(r: BenchResults): string {
  return r.notes.length ? r.notes.map((x) => `- ${x}`).join('\n') : '_None recorded._';
}

export function renderMarkdown(r: BenchResults, plotPath: string): string {
  const levels = r.levels.map((x) => n(x)).join(', ');
  return `# Benchmarks

<!-- Generated by bench/report/markdown.ts from bench/results/${r.name}.json: edit the generator, not this file. -->

Users pick this package over a hand-written polling script or a job queue because it is durable. These
figures show what the durability costs in speed, API calls, CPU and memory, measured side by side in
**one run** of \`${r.command}\` (${n(r.wallTime.value / 60, 1)} min; results in \`bench/results/${r.name}.json\`, every figure with its unit).

## Headline

${headline(r)}

## Targets

${targetsSection(r, table, n)}

![Throughput and median latency against concurrent jobs](${plotPath})

## Machine

${machineSection(r)}
## How it was measured

\`npm run bench\` starts its own Temporal dev server (the Temporal CLI, in-memory), the sandbox of both
services, the callback receiver (in the benchmark process), and **one worker process** with the
package's activities and workflows (plus a trivial one-activity workflow). Each run starts a burst of N
jobs at once (start calls, up to 64 in flight) and waits until none is running. **Jobs per second** is
completed jobs over the time from the first start to the last result, both from the server's clock;
**latency** is per job, start to result. API calls come from the sandbox's request log, history
lengths from visibility (every job) and from fetched histories (a sample, by event type), activity
slots from a counter around every activity function in the worker (sampled every 100 ms), CPU from
the processes' own counters and \`/proc\` for the server. Concurrency levels: ${levels}.

Service profiles (every scenario runs with both, with callbacks and with polling):

${profilesSection(r)}

The **plain script** (bench/peer/) is what a user would write instead: the same clients
(\`VideoClient\`, \`ReviewClient\`), the same flow (submit, wait for the callback or poll, confirm with one
query, create with the \`Asset://\` address, wait the same way), with timers and promises in one process
and nothing persisted. The **trivial workflow** is one activity that returns at once: the most this
server on this machine can run.

Reproduce: \`npm run bench\` (full, budget ${n(r.budget.value)} min: runs that would not fit are skipped and listed), \`npm run bench -- --quick\` (under two minutes,
writes \`bench/results/quick.*\`), \`npm run bench -- --report bench/results/${r.name}.json\` (regenerate
this page and the plot from the JSON).

## 1. End-to-end jobs per second (one worker)

${throughputSection(r)}
## 2. The limit of this server on this machine

${ratioSection(r, 'trivial')}
## 3. The peer: a plain Node script

${ratioSection(r, 'peer')}
## 4. API calls, history events, activity slots

${callsSection(r)}
${historyTypesSection(r)}
**Billable Temporal actions per job**

${billableSection(r, table, n)}
**History events per job against review and generation time** (realistic sandbox, same jobs, times ×1 and longer):

${independenceSection(r)}
**Activity slots held while jobs wait** (and worker memory, section 6):

${waitingSection(r)}
## 5. Callback → next call latency

From the sandbox's callback log (the moment it sends a final-state callback) to the next request it
receives for that task, both on the sandbox's clock: the receiver's signal, the workflow task, the
confirming activity and its HTTP call.

${callbackLatencySection(r)}
## 6. Worker memory with many jobs waiting

Jobs waiting for their review callback, added in chunks; the worker's RSS after each chunk (the jobs
were given a 30-minute \`callbackFallbackPollMs\` so that the safety-net poll did not fire inside the
measurement):

${memorySection(r)}
## 7. The HTTP client: undici Pool vs global fetch

${httpSection(r)}
## Tuning: before and after

Same run, same burst, worker options varied (a fresh worker process for each, warmed up first):

${tuningSection(r)}
The other before/after pairs of this run: worker memory with our 256 MiB V8 heap limit against Node's default limit
(section 6), and the connection pool at 8, 32 (the package's default) and 128 connections (section 7).

## Cost of metrics and tracing

${observabilitySection(r, table, n)}
${baselineSection(r)}
## Runs not made

${skippedSection(r)}
## Cost per job

${costSection(r)}
## Cost of a notification

${notifyCostSection()}
## Provider quota

${quotaSectionFromFile()}
## Findings

${findings(r)}
`;
}
