#!/usr/bin/env node
// `review-video`: start, inspect and cancel ReviewThenGenerate jobs, run batches and schedule them, from a
// shell or a script. Text for people, --json for scripts, documented exit codes.
import { ScheduleAlreadyRunning, ScheduleNotFoundError, WorkflowNotFoundError } from '@temporalio/client';
import { BusinessKeyConflictError, InvalidJobInputError } from './client/errors.js';
import { ConfigError } from './config/env.js';
import { TEMPORAL_DEFAULTS } from './config/temporal.js';
import { batch } from './cli/commands/batch.js';
import { cancel } from './cli/commands/cancel.js';
import { commandContext, type Command } from './cli/commands/context.js';
import { quota } from './cli/commands/quota.js';
import { schedule } from './cli/commands/schedule.js';
import { status } from './cli/commands/status.js';
import { submit } from './cli/commands/submit.js';
import { EXIT_CODES_HELP, ExitCode } from './cli/exit-codes.js';
import { CliError, output } from './cli/io.js';
import { isMainModule } from './is-main.js';

export const HELP = `Usage: review-video <command> [options]

Commands:
  submit     validate and start one job under a business key (--wait for its result)
  status     what a job or batch is and where it stands
  cancel     cancel a job (and its video task) or a batch (and its running jobs)
  batch      run many jobs as one batch, with progress, and print every job's outcome
  schedule   create | list | delete schedules that start batches on a cron or interval
  quota      the provider quotas the workers enforce: in flight, waiting, who holds the slots

Run review-video <command> --help for its options. Every command takes --json (one JSON document on
stdout for scripts), --address and --namespace.

Environment: TEMPORAL_ADDRESS and TEMPORAL_NAMESPACE (else the temporal.toml profile's, else
${TEMPORAL_DEFAULTS.address} and ${TEMPORAL_DEFAULTS.namespace}), TEMPORAL_TASK_QUEUE (${TEMPORAL_DEFAULTS.taskQueue}), and @temporalio/envconfig's
TEMPORAL_API_KEY, TEMPORAL_TLS_*, TEMPORAL_PROFILE, TEMPORAL_CONFIG_FILE. With payload encryption on,
PAYLOAD_ENCRYPTION_KEYS or PAYLOAD_ENCRYPTION_KEYS_FILE: the same keys as the worker's.

${EXIT_CODES_HELP}`;

const COMMANDS: Record<string, Command> = { submit, status, cancel, batch, schedule, quota };

/**
 * The SDK's words for a payload our codec encrypted, read by a client without one: they say what, not why.
 * The why is that no keys are set here (with keys set, the codec names a key it lacks instead).
 */
const ENCRYPTED_PAYLOAD = /Unknown encoding: binary\/encrypted/;
const MISSING_KEYS_HINT =
  "the run's payloads are encrypted and no keys are set here: set PAYLOAD_ENCRYPTION_KEYS (or PAYLOAD_ENCRYPTION_KEYS_FILE) to the worker's keys (docs/encryption.md)";

/** Maps an error to its exit code and a stable code name for JSON output. */
export function classify(err: unknown): { exitCode: number; code: string; message: string; details?: unknown } {
  const raw = err instanceof Error ? err.message : String(err);
  const message = ENCRYPTED_PAYLOAD.test(raw) ? `${raw.split('\n')[0]}: ${MISSING_KEYS_HINT}` : raw;
  if (err instanceof CliError) return { exitCode: err.exitCode, code: err.code, message, details: err.details };
  if (err instanceof InvalidJobInputError)
    return { exitCode: ExitCode.InvalidInput, code: 'invalid_input', message, details: { problems: err.problems } };
  if (err instanceof ConfigError) return { exitCode: ExitCode.Usage, code: 'config', message };
  if (err instanceof WorkflowNotFoundError || err instanceof ScheduleNotFoundError)
    return { exitCode: ExitCode.NotFound, code: 'not_found', message };
  if (err instanceof BusinessKeyConflictError || err instanceof ScheduleAlreadyRunning)
    return { exitCode: ExitCode.Conflict, code: 'conflict', message };
  return { exitCode: ExitCode.Error, code: 'error', message: message.split('\n')[0] ?? message };
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...args] = argv;
  const json = args.includes('--json');
  const out = output(json);
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    out.help(HELP);
    return name === undefined ? ExitCode.Usage : ExitCode.Ok;
  }
  const command = COMMANDS[name];
  const ctx = commandContext(args, out);
  try {
    if (!command)
      throw new CliError(
        `unknown command ${name} (submit, status, cancel, batch, schedule, quota; see --help)`,
        ExitCode.Usage,
        'usage',
      );
    return await command(ctx);
  } catch (err) {
    const e = classify(err);
    if (json)
      out.result({
        error: { code: e.code, message: e.message, ...(e.details !== undefined ? { details: e.details } : {}) },
      });
    else {
      out.note(`review-video ${name}: ${e.message}`);
      if (e.exitCode === ExitCode.Usage) out.note(`see review-video ${command ? `${name} ` : ''}--help`);
    }
    return e.exitCode;
  } finally {
    await ctx.close();
  }
}

// Compared as real paths: an installed bin is a symlink to this file.
if (isMainModule(import.meta.url)) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      console.error(`review-video: ${err instanceof Error ? err.message : String(err)}`);
      process.exit(ExitCode.Error);
    },
  );
}
