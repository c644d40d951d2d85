// BENCHMARKS.md is written by hand from one results JSON of `npm run bench`; this test holds it to that
// file, so that its words cannot go stale: the run it names (file, commit, date, machine), every figure
// in every table (each table's columns are known here, and a table this test does not know fails it),
// and the README's cost line. A figure matches when it is the JSON's value rounded to the digits shown.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { WORKER_MEMORY } from '../../src/config/worker-cache.js';
import { jobCost, meanCost } from '../lib/job-cost.js';
import { observabilityCosts } from '../lib/observability-cost.js';
import type { BenchResults, RunResult, WaitingResult } from '../results.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const page = readFileSync(`${root}BENCHMARKS.md`, 'utf8');

/** A figure the page shows: a number, or `–` where the JSON has none (`undefined`). */
type Expected = number | undefined;

interface TableSpec {
  /** The header row, exactly. */
  columns: string[];
  /** How many leading cells name the row (the rest are figures). */
  keys: number;
  /** The figures of the row named by `key`, from the results; throws when the run is not in the JSON. */
  figures: (key: string[], r: BenchResults) => Expected[];
}

const level = (cell: string) => Number(cell.replace(/,/g, ''));
const only = <T>(xs: T[], what: string): T => {
  if (xs.length !== 1) throw new Error(`${xs.length} ${what} in the results, not 1`);
  return xs[0]!;
};
const ours = (r: BenchResults, concurrency: number, mode: string, profile: string): RunResult =>
  only(
    r.runs.filter(
      (x) => x.kind === 'ours' && x.concurrency === concurrency && x.mode === mode && x.profile === profile,
    ),
    `package runs (${concurrency}, ${mode}, ${profile})`,
  );
const runOf = (r: BenchResults, kind: 'trivial' | 'peer', concurrency: number, mode?: string, profile?: string) =>
  only(
    r.runs.filter(
      (x) =>
        x.kind === kind &&
        x.concurrency === concurrency &&
        (mode === undefined || x.mode === mode) &&
        (profile === undefined || x.profile === profile),
    ),
    `${kind} runs at ${concurrency}`,
  );
const waitingOf = (r: BenchResults, config: string, mode: string): WaitingResult =>
  only(
    r.waiting.filter((w) => w.workerConfig === config && w.mode === mode),
    `waiting runs (${config}, ${mode})`,
  );
const MiB = (f: { value: number; unit: string }) => {
  expect(f.unit).toBe('MiB');
  return f.value;
};

const TABLES: TableSpec[] = [
  {
    columns: [
      'Jobs at once',
      'Mode',
      'Profile',
      'Billable actions/job',
      'of which polls',
      'History events/job',
      'Service API calls/job',
    ],
    keys: 3,
    figures: ([n, mode, profile], r) => {
      const run = ours(r, level(n!), mode!, profile!);
      const cost = jobCost(run);
      if (!cost) throw new Error('no sampled history cost');
      return [cost.total, cost.polls, run.historyEvents?.mean, run.apiCalls?.perJob];
    },
  },
  {
    columns: ['Mode', 'Review takes, ms', 'Generation takes, ms', 'History events/job, fewest', 'most'],
    keys: 3,
    figures: ([mode, review, video], r) => {
      const h = only(
        r.historyIndependence.filter(
          (x) => x.mode === mode && x.reviewMs === level(review!) && x.videoMs === level(video!),
        ),
        `history runs (${mode}, ${review}, ${video})`,
      );
      return [h.historyEvents.min, h.historyEvents.max];
    },
  },
  {
    columns: [
      'Jobs at once',
      'Mode',
      'Profile',
      'Package jobs/s',
      'Trivial workflow jobs/s',
      'Package / trivial, %',
      'Plain script jobs/s',
      'Package / plain script, %',
    ],
    keys: 3,
    figures: ([n, mode, profile], r) => {
      const pkg = ours(r, level(n!), mode!, profile!).throughput.value;
      const trivial = runOf(r, 'trivial', level(n!)).throughput.value;
      const script = runOf(r, 'peer', level(n!), mode, profile).throughput.value;
      return [pkg, trivial, (pkg / trivial) * 100, script, (pkg / script) * 100];
    },
  },
  {
    columns: ['Jobs at once', 'Profile', 'Review callbacks', 'p50, ms', 'p95, ms'],
    keys: 2,
    figures: ([n, profile], r) => {
      const latency = ours(r, level(n!), 'callbacks', profile!).callbackLatency?.reviewToCreateMs;
      return [latency?.count, latency?.p50, latency?.p95];
    },
  },
  {
    columns: [
      'Worker',
      'Mode',
      'Jobs waiting',
      'RSS idle, MiB',
      'RSS waiting, MiB',
      'Workflows cached',
      'RSS per cached workflow, KiB',
      'Activities executing (mean)',
    ],
    keys: 2,
    figures: ([config, mode], r) => {
      const w = waitingOf(r, config!, mode!);
      return [
        w.jobs,
        MiB(w.workerRssIdle),
        MiB(w.workerRssWaiting),
        w.cachedWorkflows.value,
        w.perCachedWorkflow?.rssKiB,
        w.runningActivities.mean.value,
      ];
    },
  },
  {
    columns: ['Worker', 'Jobs/s (mean of the rounds)', 'Against both off, %'],
    keys: 1,
    figures: ([config], r) => {
      const c = only(
        observabilityCosts(r).filter((x) => x.config === config),
        `observability configs ${config}`,
      );
      return [c.jobsPerSecond, c.ratioToOff === undefined ? undefined : c.ratioToOff * 100];
    },
  },
];

/** The Markdown tables of a page: header cells and body rows, cells trimmed and without backticks. */
function tablesOf(markdown: string): Array<{ line: number; header: string[]; rows: string[][] }> {
  const cells = (line: string) =>
    line
      .trim()
      .replace(/^\||\|$/g, '')
      .split('|')
      .map((c) => c.trim().replace(/`/g, ''));
  const lines = markdown.split('\n');
  const out: Array<{ line: number; header: string[]; rows: string[][] }> = [];
  for (let i = 0; i + 1 < lines.length; i++) {
    if (!lines[i]!.trim().startsWith('|') || !/^\|?\s*:?-{3,}/.test(lines[i + 1]!.trim())) continue;
    const table = { line: i + 1, header: cells(lines[i]!), rows: [] as string[][] };
    for (i += 2; i < lines.length && lines[i]!.trim().startsWith('|'); i++) table.rows.push(cells(lines[i]!));
    out.push(table);
  }
  return out;
}

/** Why `shown` is not `expected` rounded to the digits shown; undefined when it is. */
function mismatch(shown: string, expected: Expected): string | undefined {
  if (expected === undefined) return shown === '–' ? undefined : `shows ${shown} where the results have none`;
  if (!Number.isFinite(expected)) return `the results have ${expected}`;
  const m = /^(-?\d+(?:\.(\d+))?)( %)?$/.exec(shown.replace(/,/g, ''));
  if (!m) return `${shown} is not a figure`;
  const digits = m[2]?.length ?? 0;
  return Math.abs(Number(m[1]) - expected) <= 0.5 * 10 ** -digits + 1e-9
    ? undefined
    : `shows ${shown}, the results have ${expected}`;
}

/** The run the page names, and the results file it names. */
function namedRun() {
  const file = /\]\((bench\/results\/[\w.-]+\.json)\)/.exec(page)?.[1];
  const commit = /at\s+commit\s+`([0-9a-f]{7,40})`/.exec(page)?.[1];
  const date = /`npm run bench` on\s+(\d{4}-\d{2}-\d{2})/.exec(page)?.[1];
  expect(file, 'BENCHMARKS.md links the results file it was written from').toBeDefined();
  expect(commit, 'BENCHMARKS.md names the commit it measured (at commit `abc1234`)').toBeDefined();
  expect(date, 'BENCHMARKS.md gives the date of the run (`npm run bench` on YYYY-MM-DD)').toBeDefined();
  const results = JSON.parse(readFileSync(`${root}${file}`, 'utf8')) as BenchResults;
  return { file: file!, commit: commit!, date: date!, results };
}

describe('BENCHMARKS.md', () => {
  const { commit, date, results } = namedRun();

  it('names a full run of a committed tree, its commit, date and machine as the results file records them', () => {
    expect(results.quick, 'a --quick run measures nothing').toBe(false);
    expect(results.command, 'the full plan (no --only, --levels, --profiles, --modes)').toMatch(
      /^npm run bench( -- --name [\w.-]+)?$/,
    );
    expect(results.commit, 'the results record the commit measured').toBeDefined();
    expect(results.commit!.endsWith('-dirty'), 'the run measured a committed tree').toBe(false);
    expect(results.commit!.startsWith(commit)).toBe(true);
    execFileSync('git', ['cat-file', '-e', `${commit}^{commit}`], { cwd: root });
    expect(date).toBe(results.startedAt.slice(0, 10));
    const cores = /on\s+(\d+)\s+cores/.exec(page)?.[1];
    expect(Number(cores), 'the cores (on N cores)').toBe(results.machine.cores);
    const minutes = /the\s+run\s+took\s+(\d+)\s+min/i.exec(page)?.[1];
    expect(Number(minutes), 'the run took N min').toBe(Math.round(results.wallTime.value / 60));
    const load = /load\s+average\s+([\d.]+)\s+at\s+its\s+start/.exec(page)?.[1];
    expect(mismatch(load ?? '', results.machine.loadAverageAtStart[0]), 'load average N at its start').toBeUndefined();
    const end = /at\s+its\s+start,\s+([\d.]+)\s+at\s+its\s+end/.exec(page)?.[1];
    expect(mismatch(end ?? '', results.machine.loadAverageAtEnd![0]), 'N at its end').toBeUndefined();
    expect(
      results.notes.filter((n) => n.startsWith('**Run failed:**')),
      'no scenario failed',
    ).toEqual([]);
  });

  it('states in every table the figures of that run, and has only tables whose columns are known', () => {
    const tables = tablesOf(page);
    const wrong: string[] = [];
    const seen = new Set<TableSpec>();
    for (const t of tables) {
      const spec = TABLES.find((s) => s.columns.join('|') === t.header.join('|'));
      if (!spec) {
        wrong.push(`line ${t.line}: a table this test does not know: | ${t.header.join(' | ')} |`);
        continue;
      }
      seen.add(spec);
      expect(t.rows.length, `line ${t.line}: rows`).toBeGreaterThan(0);
      for (const row of t.rows) {
        const where = `line ${t.line}, row ${row.slice(0, spec.keys).join(' / ')}`;
        let expected: Expected[];
        try {
          expected = spec.figures(row.slice(0, spec.keys), results);
        } catch (err) {
          wrong.push(`${where}: ${err instanceof Error ? err.message : String(err)}`);
          continue;
        }
        expect(row.length, `${where}: cells`).toBe(spec.columns.length);
        expected.forEach((value, i) => {
          const why = mismatch(row[spec.keys + i]!, value);
          if (why) wrong.push(`${where}, ${spec.columns[spec.keys + i]}: ${why}`);
        });
      }
    }
    expect(wrong, wrong.join('\n')).toEqual([]);
    expect(seen.size, 'every kind of table appears').toBe(TABLES.length);
  });

  it('says the history does not grow with waiting time only if, per mode, longer jobs had the same events', () => {
    const claim = /The history does not grow with the time a job waits/.test(page);
    const flat = ['callbacks', 'polling'].every((mode) => {
      const h = results.historyIndependence.filter((x) => x.mode === mode);
      return h.length > 1 && h.every((x) => x.historyEvents.max === h[0]!.historyEvents.max);
    });
    expect(claim).toBe(flat);
  });

  it("measured the memory the worker's cache sizing assumes (src/config/worker-cache.ts), within 15 %", () => {
    const w = waitingOf(results, 'default', 'callbacks');
    const perCached = w.perCachedWorkflow?.rssKiB;
    expect(perCached, 'the memory of one cached workflow was measured').toBeDefined();
    const within = (measured: number, assumed: number) => Math.abs(measured - assumed) <= assumed * 0.15;
    expect(within(perCached!, WORKER_MEMORY.perCachedWorkflowKiB), `${perCached} KiB per cached workflow`).toBe(true);
    expect(within(MiB(w.workerRssIdle), WORKER_MEMORY.baselineMiB), `${w.workerRssIdle.value} MiB idle`).toBe(true);
  });

  it('and the figures docs/operations.md and the Helm values quote from it agree', () => {
    const w = waitingOf(results, 'default', 'callbacks');
    const quotes = [
      {
        file: 'docs/operations.md',
        re: /BENCHMARKS\.md: (\d+) activity slots for 10,000/,
        want: [w.runningActivities.max.value],
      },
      {
        file: 'docs/operations.md',
        re: /held 10,000\s+waiting jobs \((\d+) MiB; (\d+) MiB idle\)/,
        want: [MiB(w.workerRssWaiting), MiB(w.workerRssIdle)],
      },
      {
        file: 'deploy/helm/review-video/values.yaml',
        re: /RSS (\d+) MiB idle and (\d+) MiB with 10,000 jobs waiting/,
        want: [MiB(w.workerRssIdle), MiB(w.workerRssWaiting)],
      },
    ];
    expect(w.jobs, 'the default worker held all 10,000').toBe(10_000);
    for (const { file, re, want } of quotes) {
      const m = re.exec(readFileSync(`${root}${file}`, 'utf8'));
      expect(m, `${file}: ${re.source}`).not.toBeNull();
      want.forEach((v, i) => expect(mismatch(m![i + 1]!, v), `${file}: ${m![0]}`).toBeUndefined());
    }
  });

  it("and the README's cost line say the same: the mean actions per job of the run, on its date", () => {
    const readme = readFileSync(`${root}README.md`, 'utf8');
    const line =
      /\*\*Cost:\*\* about (\d+) actions per job on Temporal Cloud with callbacks \(about (\d+) polling, plus one per poll\), measured by `npm run bench` on (\d{4}-\d{2}-\d{2}) \(\[BENCHMARKS\.md\]\(BENCHMARKS\.md\)\)\./.exec(
        readme,
      );
    expect(line, "README.md's cost line").not.toBeNull();
    const [, callbacks, polling, on] = line!;
    expect(Number(callbacks)).toBe(Math.round(meanCost(results, 'callbacks')!.total));
    expect(Number(polling)).toBe(Math.round(meanCost(results, 'polling')!.beyondPolls!));
    expect(on).toBe(date);
  });
});

describe('a figure against the results', () => {
  it('matches when it is the value rounded to the digits shown, and `–` only where there is none', () => {
    expect(mismatch('9.7', 9.66)).toBeUndefined();
    expect(mismatch('10', 9.66)).toBeUndefined();
    expect(mismatch('1,000', 1_000)).toBeUndefined();
    expect(mismatch('31 %', 30.6)).toBeUndefined();
    expect(mismatch('9.6', 9.66)).toBeDefined();
    expect(mismatch('–', undefined)).toBeUndefined();
    expect(mismatch('–', 3)).toBeDefined();
    expect(mismatch('3', undefined)).toBeDefined();
    expect(mismatch('about 3', 3)).toBeDefined();
  });

  it('finds the tables of a page, their header and rows', () => {
    const md = 'text\n\n| A | `b` |\n|---|---:|\n| 1 | 2 |\n| 3 | 4 |\n\nmore | not a table\n';
    expect(tablesOf(md)).toEqual([
      {
        line: 3,
        header: ['A', 'b'],
        rows: [
          ['1', '2'],
          ['3', '4'],
        ],
      },
    ]);
  });
});
