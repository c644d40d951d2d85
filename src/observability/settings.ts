// The observability settings (design: configuration): LOG_LEVEL, LOG_FORMAT, PROMETHEUS_BIND_ADDRESS and
// the drain delay of the callback receiver. Read only when called; a bad value is named, never echoed.
import { z } from 'zod';
import { ConfigError } from '../config/env.js';

type Env = Record<string, string | undefined>;

export type LogLevelName = 'trace' | 'debug' | 'info' | 'warn' | 'error';
export type LogFormat = 'json' | 'pretty';

export interface ObservabilitySettings {
  logLevel: LogLevelName;
  logFormat: LogFormat;
  /** host:port of the metrics + health endpoint; undefined = off. */
  prometheusBindAddress: string | undefined;
}

const schema = z.object({
  LOG_LEVEL: z
    .string()
    .transform((s) => s.toLowerCase())
    .pipe(z.enum(['trace', 'debug', 'info', 'warn', 'error'], { error: 'must be trace, debug, info, warn or error' }))
    .default('info'),
  LOG_FORMAT: z.enum(['json', 'pretty'], { error: 'must be json or pretty' }).optional(),
  PROMETHEUS_BIND_ADDRESS: z
    .string()
    .regex(/^(?:\[[0-9a-fA-F:.]+\]|[\w.-]+):\d{1,5}$/, { error: 'must be host:port, e.g. 0.0.0.0:9464' })
    .optional(),
});

function parse(env: Env): z.infer<typeof schema> {
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const r = schema.safeParse(present);
  if (!r.success) {
    const lines = r.error.issues.map((i) => `${i.path.join('.')} ${i.message}`);
    throw new ConfigError(`invalid configuration: ${lines.join('; ')}`);
  }
  return r.data;
}

/** LOG_FORMAT unset: pretty on a terminal, JSON lines otherwise (containers, log shippers, tests). */
export function loadObservabilitySettings(env: Env = process.env, isTty = process.stdout.isTTY === true) {
  const v = parse(env);
  return {
    logLevel: v.LOG_LEVEL,
    logFormat: v.LOG_FORMAT ?? (isTty ? 'pretty' : 'json'),
    prometheusBindAddress: v.PROMETHEUS_BIND_ADDRESS,
  } satisfies ObservabilitySettings;
}

/** Splits `host:port` (IPv6 in brackets) for node:net. */
export function splitHostPort(address: string): { host: string; port: number } {
  const i = address.lastIndexOf(':');
  return { host: address.slice(0, i).replace(/^\[(.*)\]$/, '$1'), port: Number(address.slice(i + 1)) };
}

/** CALLBACK_DRAIN_DELAY_MS (default 0): how long a draining receiver still accepts, readiness already 503. */
export function loadDrainDelayMs(env: Env = process.env): number {
  const raw = env.CALLBACK_DRAIN_DELAY_MS;
  if (raw === undefined || raw === '') return 0;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > 600_000)
    throw new ConfigError('invalid configuration: CALLBACK_DRAIN_DELAY_MS must be an integer from 0 to 600000');
  return n;
}
