// The Temporal CLI dev server as a supervised child process with a database file, so the soak can stop
// it and start it again on the same port with every workflow still there (startDevServer cannot restart).
import { join } from 'node:path';
import { Connection } from '@temporalio/client';
import { SearchAttributeType } from '@temporalio/common';
import { locateTemporalCli } from '../../scripts/temporal-cli.mjs';
import { allSearchAttributes } from '../../src/contract/index.js';
import { Supervised } from './supervisor.js';

const CLI_TYPES: Partial<Record<string, string>> = {
  [SearchAttributeType.KEYWORD]: 'Keyword',
  [SearchAttributeType.KEYWORD_LIST]: 'KeywordList',
  [SearchAttributeType.TEXT]: 'Text',
  [SearchAttributeType.INT]: 'Int',
  [SearchAttributeType.DOUBLE]: 'Double',
  [SearchAttributeType.BOOL]: 'Bool',
  [SearchAttributeType.DATETIME]: 'Datetime',
};

export interface TemporalServer {
  address: string;
  cliVersion: string;
  process: Supervised;
  /** Resolves once the frontend answers (not just listens). */
  waitServing(connection: Connection, timeoutMs: number): Promise<void>;
}

export function temporalServer(opts: { outDir: string; port: number }): TemporalServer {
  const cli = locateTemporalCli();
  if (!cli.path) throw new Error(`the soak needs the Temporal CLI: ${cli.route}`);
  const args = [
    'server',
    'start-dev',
    '--db-filename',
    join(opts.outDir, 'temporal.db'),
    '--port',
    String(opts.port),
    '--ip',
    '127.0.0.1',
    '--headless',
    '--namespace',
    'default',
    '--log-level',
    'error',
    '--dynamic-config-value',
    'frontend.enableServerVersionCheck=false',
    // Write-ahead log: commits survive a killed process (not a power cut) without an fsync per write,
    // which on a busy disk made every workflow task miss its deadline.
    '--sqlite-pragma',
    'journal_mode=wal',
    '--sqlite-pragma',
    'synchronous=normal',
    ...allSearchAttributes.flatMap((a) => ['--search-attribute', `${a.name}=${CLI_TYPES[a.type] ?? 'Keyword'}`]),
  ];
  const supervised = new Supervised({
    name: 'temporal',
    command: cli.path,
    args,
    env: process.env,
    logFile: join(opts.outDir, 'logs', 'temporal.log'),
    readyPattern: /Temporal Server:/,
    restartDelayMs: 1_000,
  });
  return {
    address: `127.0.0.1:${opts.port}`,
    cliVersion: cli.version ?? 'unknown',
    process: supervised,
    async waitServing(connection, timeoutMs) {
      const end = Date.now() + timeoutMs;
      for (;;) {
        try {
          await connection.withDeadline(Date.now() + 2_000, () =>
            connection.workflowService.describeNamespace({ namespace: 'default' }),
          );
          return;
        } catch (err) {
          if (Date.now() > end) {
            throw new Error(
              `Temporal server not serving after ${timeoutMs} ms: ${err instanceof Error ? err.message : String(err)}`,
              { cause: err },
            );
          }
          await new Promise((r) => setTimeout(r, 300));
        }
      }
    },
  };
}
