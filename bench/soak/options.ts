// Command-line options of the soak run and the two presets: the full run (1,000 jobs, the figures of
// RELIABILITY.md) and --quick (100 jobs, the CI run). Every knob of the chaos lives here.
import { parseArgs } from 'node:util';
import type { Timing } from '../../src/workflows/input.js';

export interface SoakOptions {
  jobs: number;
  quick: boolean;
  seed: number;
  /** Jobs running at once (started but not finished). */
  window: number;
  /** Starts per second, at most. */
  startRate: number;
  /** A job not finished this long after its start is lost. */
  jobDeadlineMs: number;
  /** Where logs, the report and (optionally) histories go; a fresh temp folder when absent. */
  outDir: string | undefined;
  /** Write RELIABILITY.md (the full run's record) to this path. */
  reliabilityPath: string | undefined;
  /** Write every workflow history to histories.jsonl (the soak test scans them itself). */
  dumpHistories: boolean;
  timing: Timing;
  httpTimeoutMs: number;
  /** How long a hang fault holds the answer: longer than the client time-out, so it becomes a time-out. */
  hangMs: number;
  sandbox: { reviewDurationMs: number; videoDurationMs: number };
  /** Random up-time of the worker process (from ready) before its SIGKILL. */
  workerKillEveryMs: [number, number];
  /** Random up-time of the callback receiver process (from ready) before its restart. */
  receiverRestartEveryMs: [number, number];
  /** The Temporal server is stopped once, when this share of the jobs has been started, for this long. */
  serverStopAtShare: number;
  serverDownMs: number;
  /** Fault-free requests of one operation between two faults on it (uniform in the range). */
  requestsBetweenFaults: [number, number];
  callbacksBetweenFaults: [number, number];
}

/**
 * Short, consistent timings: review queries paced at 500 ms; an ambiguous create waits 15 s for a callback
 * naming the task, longer than a video task takes (10 s) plus a Temporal restart, so a callback can always
 * name it; fallback polling (4 s) is slower than plain polling (1.5 s), as in production.
 */
const TIMING: Timing = {
  reviewMinQueryIntervalMs: 500,
  videoPollIntervalMs: 1_500,
  reviewTimeoutMs: 900_000,
  generationTimeoutMs: 900_000,
  createAmbiguityGraceMs: 15_000,
  callbackFallbackPollMs: 4_000,
  callTimeoutMs: 5_000,
};

export const USAGE = `usage: npm run soak -- [--quick] [--jobs N] [--seed S] [--window W] [--out DIR] [--reliability FILE] [--dump-histories]
  --quick            100 jobs and a shorter chaos schedule (the CI run)
  --jobs N           number of jobs (default 1000, or 100 with --quick)
  --seed S           seed of the job mix, faults and chaos schedule (default: random, printed)
  --window W         jobs in flight at once (default 100, or 50 with --quick)
  --out DIR          folder for logs and report.json (default: a new temp folder)
  --reliability FILE write the run's record (RELIABILITY.md) there
  --dump-histories   write every workflow history to DIR/histories.jsonl`;

export function parseSoakOptions(argv: string[]): SoakOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      quick: { type: 'boolean', default: false },
      jobs: { type: 'string' },
      seed: { type: 'string' },
      window: { type: 'string' },
      out: { type: 'string' },
      reliability: { type: 'string' },
      'dump-histories': { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const int = (name: string, raw: string | undefined, fallback: number, min: number): number => {
    if (raw === undefined) return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min) throw new Error(`--${name} must be an integer >= ${min} (got '${raw}')`);
    return n;
  };
  const quick = values.quick;
  return {
    jobs: int('jobs', values.jobs, quick ? 100 : 1_000, 1),
    quick,
    seed: int('seed', values.seed, Math.floor(Math.random() * 2 ** 31), 0),
    window: int('window', values.window, quick ? 50 : 100, 1),
    startRate: 15,
    jobDeadlineMs: quick ? 360_000 : 600_000,
    outDir: values.out,
    reliabilityPath: values.reliability,
    dumpHistories: values['dump-histories'],
    timing: { ...TIMING },
    httpTimeoutMs: 2_000,
    hangMs: 3_000,
    sandbox: { reviewDurationMs: 1_000, videoDurationMs: 10_000 },
    workerKillEveryMs: quick ? [15_000, 30_000] : [15_000, 40_000],
    receiverRestartEveryMs: quick ? [20_000, 40_000] : [30_000, 60_000],
    serverStopAtShare: 0.5,
    serverDownMs: 3_000,
    requestsBetweenFaults: [4, 16],
    callbacksBetweenFaults: [3, 10],
  };
}
