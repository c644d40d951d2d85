// Command-line options of the soak run and the two presets: the full run (1,000 jobs, the figures of
// RELIABILITY.md) and --quick (100 jobs, the CI run). Every knob of the chaos lives here.
import { parseArgs } from 'node:util';
import type { Timing } from '../../src/job/input.js';

export interface SoakOptions {
  jobs: number;
  quick: boolean;
  seed: number;
  /** `--seeds a,b,c`: run once per seed, one after the other (the first is `seed`); RELIABILITY.md gets them all. */
  seeds: number[];
  /** Worker processes on the one task queue, each SIGKILLed at random on its own schedule. */
  workers: number;
  /** Share of the jobs that opt in to `resubmitOnAmbiguity` (their extra tasks are counted apart). */
  optInShare: number;
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
  /** Passed to startSandbox; `--video-quota` / `--review-quota` add the sandbox's tasks-in-flight limits. */
  sandbox: {
    reviewDurationMs: number;
    videoDurationMs: number;
    videoMaxTasksInFlight?: number;
    reviewMaxTasksInFlight?: number;
  };
  /**
   * `--video-budget-seconds N`: the workers' VIDEO_DAILY_SECONDS_BY_TENANT for the jobs' tenant (`default`:
   * soak jobs name none), so every create is charged against a daily budget by the gate.
   */
  videoBudgetSeconds?: number;
  /** Random up-time of each worker process (from ready) before its SIGKILL. */
  workerKillEveryMs: [number, number];
  /** Random up-time of the callback receiver process (from ready) before its restart. */
  receiverRestartEveryMs: [number, number];
  /** The Temporal server is stopped once, when this share of the jobs has been started, for this long. */
  serverStopAtShare: number;
  serverDownMs: number;
  /** Fault-free requests of one operation between two faults on it (uniform in the range). */
  requestsBetweenFaults: [number, number];
  callbacksBetweenFaults: [number, number];
  /** The same for the deliveries of notifications to the soak's webhook receiver. */
  notificationsBetweenFaults: [number, number];
  /**
   * After the last job's outcome, how long to wait at most for the notifications still on their way
   * (a retry after a fault or a killed worker's lost attempt, whose 30 s attempt time-out runs first).
   */
  notifySettleMs: number;
}

/**
 * Short, consistent timings: review queries paced at 500 ms; fallback polling (4 s) is slower than plain
 * polling (1.5 s), as in production. After an ambiguous submit or create the run waits for a callback
 * naming the task up to the stage's time-out (review / generation), then ends SubmitUnconfirmed: those
 * time-outs are far above what a stage takes under the soak's chaos (a review 1 s, a video 10 s, plus
 * worker kills and a Temporal restart: the report prints the slowest stage of a confirmed job), and
 * short enough that the jobs that do wait them out keep the run within its budget: 120 s for the full
 * run (1,000 jobs, 100 at a time), 60 s for the quick one (its stages take under 25 s). Jobs that opt in
 * to resubmitting wait 15 s (createAmbiguityGraceMs), longer than a video task takes plus a Temporal
 * restart. One activity attempt may take 15 s (callTimeoutMs): longer than the Temporal outage plus the
 * SDK's retries of the attempt's completion, so an answer a worker received just before the server went
 * down still reaches the run (with 5 s, the attempt timed out first and was run again: a second query of
 * a task already answered cancelled, or a second submit). A SIGKILLed worker's attempt is retried after it.
 */
const TIMING: Timing = {
  reviewMinQueryIntervalMs: 500,
  videoPollIntervalMs: 1_500,
  reviewTimeoutMs: 120_000,
  generationTimeoutMs: 120_000,
  createAmbiguityGraceMs: 15_000,
  callbackFallbackPollMs: 4_000,
  callTimeoutMs: 15_000,
};

export const USAGE = `usage: npm run soak -- [--quick] [--jobs N] [--seed S | --seeds S,S,...] [--workers N] [--window W] [--out DIR] [--reliability FILE] [--dump-histories] [--video-quota N] [--review-quota N] [--video-budget-seconds N]
  --quick            100 jobs and a shorter chaos schedule (the CI run)
  --jobs N           number of jobs (default 1000, or 100 with --quick)
  --seed S           seed of the job mix, faults and chaos schedule (default: random, printed)
  --seeds S,S,...    one run per seed, one after the other; the first run's figures and a table of every
                     seed go to RELIABILITY.md (with --reliability); exits 1 if any run failed
  --workers N        worker processes on the one task queue, each SIGKILLed at random (default 2)
  --opt-in SHARE     share of the jobs started with resubmitOnAmbiguity: true (default 0.05; 0 = none)
  --window W         jobs in flight at once (default 100, or 50 with --quick)
  --out DIR          folder for logs and report.json (default: a new temp folder)
  --reliability FILE write the run's record (RELIABILITY.md) there
  --dump-histories   write every workflow history to DIR/histories.jsonl
  --video-quota N    the sandbox allows N video tasks in flight (per API key) and answers a create beyond
                     them 429, making nothing; the workers get VIDEO_MAX_TASKS_IN_FLIGHT=N, so jobs wait
                     for a slot instead (default: no quota)
  --review-quota N   the same for review tasks in flight (per access token), and the workers'
                     REVIEW_MAX_TASKS_IN_FLIGHT=N (default: no quota)
  --video-budget-seconds N
                     the workers' daily budget of video seconds for the jobs' tenant (\`default\`):
                     VIDEO_DAILY_SECONDS_BY_TENANT=default:N; the run fails if the tasks created bill more,
                     or if one was made without a duration.
                     Above 5 s x the jobs it only charges; below, the jobs past it wait for the next UTC
                     day and are reported lost (default: no budget)`;

export function parseSoakOptions(argv: string[]): SoakOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      quick: { type: 'boolean', default: false },
      jobs: { type: 'string' },
      seed: { type: 'string' },
      seeds: { type: 'string' },
      workers: { type: 'string' },
      'opt-in': { type: 'string' },
      window: { type: 'string' },
      out: { type: 'string' },
      reliability: { type: 'string' },
      'dump-histories': { type: 'boolean', default: false },
      'video-quota': { type: 'string' },
      'review-quota': { type: 'string' },
      'video-budget-seconds': { type: 'string' },
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
  if (values.seed !== undefined && values.seeds !== undefined) throw new Error('give --seed or --seeds, not both');
  const seeds =
    values.seeds !== undefined
      ? values.seeds.split(',').map((raw) => int('seeds', raw.trim(), 0, 0))
      : [int('seed', values.seed, Math.floor(Math.random() * 2 ** 31), 0)];
  if (seeds.length === 0 || new Set(seeds).size !== seeds.length)
    throw new Error(`--seeds must list distinct seeds (got '${values.seeds}')`);
  const optIn = values['opt-in'] === undefined ? 0.05 : Number(values['opt-in']);
  if (!(optIn >= 0 && optIn <= 1))
    throw new Error(`--opt-in must be a share between 0 and 1 (got '${values['opt-in']}')`);
  return {
    jobs: int('jobs', values.jobs, quick ? 100 : 1_000, 1),
    quick,
    seed: seeds[0]!,
    seeds,
    workers: int('workers', values.workers, 2, 1),
    optInShare: optIn,
    window: int('window', values.window, quick ? 50 : 100, 1),
    startRate: 15,
    jobDeadlineMs: quick ? 360_000 : 600_000,
    outDir: values.out,
    reliabilityPath: values.reliability,
    dumpHistories: values['dump-histories'],
    timing: { ...TIMING, ...(quick ? { reviewTimeoutMs: 60_000, generationTimeoutMs: 60_000 } : {}) },
    httpTimeoutMs: 2_000,
    hangMs: 3_000,
    sandbox: {
      reviewDurationMs: 1_000,
      videoDurationMs: 10_000,
      ...(values['video-quota'] !== undefined
        ? { videoMaxTasksInFlight: int('video-quota', values['video-quota'], 0, 1) }
        : {}),
      ...(values['review-quota'] !== undefined
        ? { reviewMaxTasksInFlight: int('review-quota', values['review-quota'], 0, 1) }
        : {}),
    },
    ...(values['video-budget-seconds'] !== undefined
      ? { videoBudgetSeconds: int('video-budget-seconds', values['video-budget-seconds'], 0, 1) }
      : {}),
    workerKillEveryMs: quick ? [15_000, 30_000] : [15_000, 40_000],
    receiverRestartEveryMs: quick ? [20_000, 40_000] : [30_000, 60_000],
    serverStopAtShare: 0.5,
    serverDownMs: 3_000,
    requestsBetweenFaults: [4, 16],
    callbacksBetweenFaults: [3, 10],
    notificationsBetweenFaults: [3, 10],
    notifySettleMs: quick ? 120_000 : 240_000,
  };
}
