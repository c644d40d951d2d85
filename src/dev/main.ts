// `npm run dev`: the whole local stack (src/dev/local-stack.ts) started and kept running until Ctrl-C,
// with every address and credential printed once. The recipe around it: docs/local.md.
import { parseArgs } from 'node:util';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { startLocalStack } from './local-stack.js';
import { stackAddresses, stackEnvLines } from './stack-report.js';
import { stopOnSignal } from './stop-signal.js';

export const DEV_HELP = `Usage: npm run dev -- [--port <n>] [--ui-port <n>]

Starts a Temporal dev server (search attributes registered), the sandbox of both services, the callback
receiver, the codec server and a worker; prints their addresses and credentials; stops them on Ctrl-C.

Options:
  --port <n>      the Temporal frontend's port (default 7233; 0 = a free one)
  --ui-port <n>   the Web UI's port (default 8233; 0 = a free one)
  -h, --help`;

const DEV_PORTS = { temporal: 7233, ui: 8233 } as const;

function port(raw: string | undefined, fallback: number, flag: string): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > 65_535) throw new Error(`${flag} must be a port number (0 = a free one)`);
  return n;
}

async function main(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: { port: { type: 'string' }, 'ui-port': { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  });
  if (values.help) return void console.log(DEV_HELP);
  const temporalPort = port(values.port, DEV_PORTS.temporal, '--port');
  const uiPort = port(values['ui-port'], DEV_PORTS.ui, '--ui-port');
  // Only the stack's own lines on the console; the SDK's per-worker INFO lines would drown them.
  Runtime.install({ logger: new DefaultLogger('WARN') });
  console.log('starting the local stack...');
  const stack = await startLocalStack({
    temporalPort,
    uiPort,
    sandbox: { reviewDurationMs: 1_500, videoDurationMs: 3_000 },
  });
  let stopping = false;
  stopOnSignal(() => {
    stopping = true;
    return stack.stop();
  });
  for (const line of [...stackAddresses(stack), '', ...stackEnvLines(stack)]) console.log(line);
  console.log('\nlocal stack ready; Ctrl-C stops it (docs/local.md)');
  // A worker that fails leaves nothing to serve jobs: stop the rest and say why.
  stack.workerRunning.catch(async (err: unknown) => {
    if (stopping) return;
    console.error(`worker failed: ${err instanceof Error ? err.message : String(err)}`);
    await stack.stop();
    process.exit(1);
  });
}

main(process.argv.slice(2)).catch((err: unknown) => {
  console.error(`dev: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
