// One logger for our processes and the SDK (Runtime.install({ logger })): one JSON object a line, or a
// readable line on a terminal. The SDK adds workflowId, runId, activityType, taskQueue... to the meta of
// activity and workflow logs; they become top-level fields here. Errors keep their type and message.
import type { Logger, LogLevel, LogMetadata } from '@temporalio/common';
import type { LogFormat, LogLevelName } from './settings.js';

const RANK: Record<LogLevel, number> = { TRACE: 10, DEBUG: 20, INFO: 30, WARN: 40, ERROR: 50 };

export interface LoggerOptions {
  level: LogLevelName;
  format: LogFormat;
  /** Which process writes (`worker`, `callbacks`): the `component` field. */
  component: string;
  /** Default: stdout; a line is written whole, in one call. */
  write?: (line: string) => void;
}

function plain(value: unknown, depth = 0): unknown {
  if (value instanceof Error) {
    const cause = depth < 3 && value.cause !== undefined ? { cause: plain(value.cause, depth + 1) } : {};
    return { type: value.name, message: value.message, ...cause };
  }
  if (typeof value === 'bigint') return value.toString();
  return value;
}

function fields(meta: LogMetadata | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(meta ?? {})) if (v !== undefined) out[k] = plain(v);
  return out;
}

function jsonLine(time: Date, level: LogLevel, msg: string, component: string, meta?: LogMetadata): string {
  const record = { time: time.toISOString(), level: level.toLowerCase(), component, msg, ...fields(meta) };
  try {
    return JSON.stringify(record);
  } catch {
    return JSON.stringify({ time: record.time, level: record.level, component, msg, meta: 'unserializable' });
  }
}

function prettyLine(time: Date, level: LogLevel, msg: string, component: string, meta?: LogMetadata): string {
  const extra = Object.entries(fields(meta))
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(' ');
  return `${time.toISOString().slice(11, 23)} ${level.padEnd(5)} ${component}: ${msg}${extra ? ` ${extra}` : ''}`;
}

export function createLogger(options: LoggerOptions): Logger {
  const min = RANK[options.level.toUpperCase() as LogLevel];
  const format = options.format === 'json' ? jsonLine : prettyLine;
  const write = options.write ?? ((line: string) => process.stdout.write(`${line}\n`));
  const log = (level: LogLevel, message: string, meta?: LogMetadata) => {
    if (RANK[level] < min) return;
    write(format(new Date(), level, message, options.component, meta));
  };
  return {
    log,
    trace: (m, meta) => log('TRACE', m, meta),
    debug: (m, meta) => log('DEBUG', m, meta),
    info: (m, meta) => log('INFO', m, meta),
    warn: (m, meta) => log('WARN', m, meta),
    error: (m, meta) => log('ERROR', m, meta),
  };
}
