// What every command receives: its arguments, the output, and a lazily made Temporal client (so --help and
// usage errors never need a server).
import type { Client } from '@temporalio/client';
import { connectClient, type ConnectedClient } from '../../temporal/connect-client.js';
import { ExitCode } from '../exit-codes.js';
import { CliError, type Output } from '../io.js';

export interface CommandContext {
  args: string[];
  out: Output;
  connect(flags: {
    address?: string | undefined;
    namespace?: string | undefined;
  }): Promise<{ client: Client; taskQueue: string }>;
  close(): Promise<void>;
}

export function commandContext(
  args: string[],
  out: Output,
  env: Record<string, string | undefined> = process.env,
): CommandContext {
  let connected: ConnectedClient | undefined;
  return {
    args,
    out,
    async connect(flags) {
      if (!connected) {
        const overrides = {
          ...(flags.address ? { TEMPORAL_ADDRESS: flags.address } : {}),
          ...(flags.namespace ? { TEMPORAL_NAMESPACE: flags.namespace } : {}),
        };
        if (flags.address) process.env.TEMPORAL_ADDRESS = flags.address; // envconfig reads process.env
        try {
          connected = await connectClient({ ...env, ...overrides });
        } catch (err) {
          throw new CliError((err as Error).message, ExitCode.Error, 'unavailable');
        }
      }
      return { client: connected.client, taskQueue: connected.config.taskQueue };
    },
    async close() {
      await connected?.close();
    },
  };
}

export type Command = (ctx: CommandContext) => Promise<number>;
