// Command-line plumbing shared by the commands: flag parsing with node:util parseArgs (usage errors become
// exit code 2), reading JSON inputs, and printing either text for people or one JSON document for scripts.
import { readFileSync } from 'node:fs';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { ExitCode } from './exit-codes.js';

export class CliError extends Error {
  override name = 'CliError';
  constructor(
    message: string,
    readonly exitCode: ExitCode,
    readonly code: string,
    readonly details?: unknown,
  ) {
    super(message);
  }
}

export const usage = (message: string) => new CliError(message, ExitCode.Usage, 'usage');

/** Flags every command accepts. */
export const commonOptions = {
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
  address: { type: 'string' },
  namespace: { type: 'string' },
} as const satisfies ParseArgsConfig['options'];

type Options = NonNullable<ParseArgsConfig['options']>;
type Parsed<O extends Options> = ReturnType<
  typeof parseArgs<{ args: string[]; options: typeof commonOptions & O; allowPositionals: boolean; strict: true }>
>;

export function parse<O extends Options>(args: string[], options: O, positionals = 0): Parsed<O> {
  try {
    const parsed = parseArgs({
      args,
      options: { ...commonOptions, ...options },
      allowPositionals: positionals > 0,
      strict: true,
    });
    if (parsed.positionals.length > positionals) throw usage(`unexpected argument ${parsed.positionals[positionals]}`);
    return parsed;
  } catch (err) {
    if (err instanceof CliError) throw err;
    throw usage(err instanceof Error ? err.message : String(err));
  }
}

/** Reads a JSON value from a flag's text, or from a file (`-` = standard input). */
export function readJson(what: string, text: string | undefined, file: string | undefined): unknown {
  if ((text === undefined) === (file === undefined)) throw usage(`give exactly one of --${what} or --${what}-file`);
  const source = text ?? (file === '-' ? readFileSync(0, 'utf8') : readFile(file!));
  try {
    return JSON.parse(source);
  } catch (err) {
    throw new CliError(
      `--${what}${file !== undefined ? `-file ${file}` : ''} is not valid JSON: ${(err as Error).message}`,
      ExitCode.InvalidInput,
      'invalid_input',
    );
  }
}

function readFile(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new CliError(
      `cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
      ExitCode.InvalidInput,
      'invalid_input',
    );
  }
}

export function positiveInt(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw usage(`--${flag} must be a positive integer (got ${value})`);
  return n;
}

export interface Output {
  json: boolean;
  /** Text for people (stdout); ignored in JSON mode. */
  text(line: string): void;
  /** The JSON document for scripts (stdout); ignored in text mode. */
  result(value: unknown): void;
  /** Progress and notes (stderr), in both modes. */
  note(line: string): void;
  /** --help text (stdout, both modes). */
  help(text: string): void;
}

export function output(json: boolean): Output {
  return {
    json,
    text: (line) => {
      if (!json) process.stdout.write(`${line}\n`);
    },
    result: (value) => {
      if (json) process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
    },
    note: (line) => process.stderr.write(`${line}\n`),
    help: (text) => process.stdout.write(`${text}\n`),
  };
}

/** Markdown as shown in the Web UI, flattened for a terminal. */
export function plainMarkdown(md: string | undefined): string[] {
  if (!md) return [];
  return md
    .split(/\n+/)
    .map((l) => l.replace(/\*\*/g, '').trim())
    .filter((l) => l !== '');
}
