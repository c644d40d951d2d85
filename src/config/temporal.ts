// Where Temporal is: TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE and TEMPORAL_TASK_QUEUE, else the envconfig
// profile's address and namespace, else the design's defaults.
import { loadClientConfigProfile } from '@temporalio/envconfig';
import { z } from 'zod';
import { ConfigError, nonEmpty, parse, present, type Env } from './env.js';
import type { TemporalConfig } from './types.js';

/** The defaults of the design's configuration table: the schemas below and the explicit options read them. */
export const TEMPORAL_DEFAULTS = {
  address: 'localhost:7233',
  namespace: 'default',
  taskQueue: 'video-generation',
} as const;
/** The task queue of our standalone worker; in your own worker, use your own queue. */
export const DEFAULT_TASK_QUEUE = TEMPORAL_DEFAULTS.taskQueue;
export const temporalConfigSchema = z.object({
  TEMPORAL_ADDRESS: nonEmpty.default(TEMPORAL_DEFAULTS.address),
  TEMPORAL_NAMESPACE: nonEmpty.default(TEMPORAL_DEFAULTS.namespace),
  TEMPORAL_TASK_QUEUE: nonEmpty.default(TEMPORAL_DEFAULTS.taskQueue),
});

/**
 * The address and namespace of the envconfig profile (TEMPORAL_PROFILE, else `default`, in
 * TEMPORAL_CONFIG_FILE or the default temporal.toml), read from the same variables the connection uses.
 */
function profileSettings(env: Env): { address?: string; namespace?: string } {
  const vars = Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined));
  try {
    // disableEnv: the file's values only; the variables are read by our own schema.
    const p = loadClientConfigProfile({ disableEnv: true, overrideEnvVars: vars });
    return { address: p.address?.trim() || undefined, namespace: p.namespace?.trim() || undefined };
  } catch (err) {
    // A TOML parser's message quotes the file, which may hold an API key: only the missing profile is named.
    const message = err instanceof Error ? err.message : '';
    const why = /^Profile '[^']*' not found/.test(message)
      ? message
      : 'the Temporal config file could not be read as TOML';
    throw new ConfigError(`invalid configuration: TEMPORAL_PROFILE / TEMPORAL_CONFIG_FILE: ${why}`);
  }
}

/** TEMPORAL_ADDRESS and TEMPORAL_NAMESPACE win; when unset, the temporal.toml profile's; else the defaults. */
export function loadTemporalConfig(env: Env = process.env): TemporalConfig {
  const c = parse(temporalConfigSchema, env);
  const set = present(env);
  const profile =
    set.TEMPORAL_ADDRESS !== undefined && set.TEMPORAL_NAMESPACE !== undefined ? {} : profileSettings(env);
  return {
    address: set.TEMPORAL_ADDRESS !== undefined ? c.TEMPORAL_ADDRESS : (profile.address ?? c.TEMPORAL_ADDRESS),
    namespace:
      set.TEMPORAL_NAMESPACE !== undefined ? c.TEMPORAL_NAMESPACE : (profile.namespace ?? c.TEMPORAL_NAMESPACE),
    taskQueue: c.TEMPORAL_TASK_QUEUE,
  };
}
