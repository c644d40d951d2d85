// Exit codes of the CLI, for scripts (also listed by `review-video --help`).
export const ExitCode = {
  Ok: 0,
  /** The job, or at least one job of the batch, did not succeed. */
  Failed: 1,
  /** Bad command line: unknown command or flag, missing value. */
  Usage: 2,
  /** The input was refused before anything was started. */
  InvalidInput: 3,
  /** No such workflow or schedule. */
  NotFound: 4,
  /** The business key (or schedule id) is already used by something else. */
  Conflict: 5,
  /** Temporal unreachable, or another unexpected error. */
  Error: 6,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

export const EXIT_CODES_HELP = `Exit codes:
  0  success
  1  the job (or a job of the batch) did not succeed
  2  usage error (unknown command or flag, missing value)
  3  invalid input: refused before anything was started
  4  not found (workflow or schedule)
  5  conflict: the business key or schedule id is already used
  6  Temporal unreachable, or another error`;
