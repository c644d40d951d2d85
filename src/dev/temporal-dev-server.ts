// Starts the Temporal CLI dev server (embedded Web UI) on free ports through @temporalio/testing, with
// our search attributes registered. Used by the demo, the tests and the benchmarks; never by production.
import { createServer } from 'node:net';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { temporalCli } from './temporal-cli.js';
import { allSearchAttributes } from '../contract/index.js';

export interface DevServer {
  env: TestWorkflowEnvironment;
  address: string;
  uiUrl: string | undefined;
  namespace: string;
  cliVersion: string;
  teardown(): Promise<void>;
}

export async function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, host, () => {
      const addr = srv.address();
      srv.close(() => (typeof addr === 'object' && addr ? resolve(addr.port) : reject(new Error('no port'))));
    });
  });
}

/**
 * Runs `start` again (up to `attempts` in all) when it failed because the server was slow to come up: the
 * SDK waits 5 s for the dev server, a limit that cannot be set, and a cold or busy machine (after a long
 * soak, beside another test run) sometimes needs more. Any other error is thrown at once.
 */
export async function retrySlowStart<T>(start: () => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start();
    } catch (err) {
      const slow = err instanceof Error && /did not start within/.test(err.message);
      if (!slow || attempt >= attempts) throw err;
    }
  }
}

export async function startDevServer(
  opts: {
    ui?: boolean;
    dbFilename?: string;
    port?: number;
    extraArgs?: string[];
    /** The codec server the Web UI decodes payloads through (the demo's, when payload encryption is on). */
    uiCodecEndpoint?: string;
    /** The Web UI's port (default: a free one). */
    uiPort?: number;
  } = {},
): Promise<DevServer> {
  const cli = temporalCli();
  const uiPort = opts.ui ? (opts.uiPort ?? (await freePort())) : undefined;
  const env = await retrySlowStart(() =>
    TestWorkflowEnvironment.createLocal({
      server: {
        ...(cli.path ? { executable: { type: 'existing-path' as const, path: cli.path } } : {}),
        ip: '127.0.0.1',
        ...(opts.port ? { port: opts.port } : {}),
        ...(uiPort ? { ui: true, uiPort } : { ui: false }),
        ...(opts.dbFilename ? { dbFilename: opts.dbFilename } : {}),
        searchAttributes: allSearchAttributes,
        // Timer precision of ~50 ms instead of the default ~1 s, so that sub-second poll intervals in tests
        // and benchmarks are honoured as written (production intervals are seconds apart).
        extraArgs: [
          '--dynamic-config-value',
          'history.timerProcessorMaxTimeShift="50ms"',
          // The history service reads each of its task queues (timers, transfers to matching, visibility) at
          // most 20 times a second by default, and that limit, not the load, set the pace: polls with a
          // 100 ms retry timer came 200-400 ms apart (500 polls took 120 s; 56 s at 1,000 reads a second).
          // The CPU is the same (the 2,000-job batch: 206 and 209 core-seconds).
          ...['timer', 'transfer', 'visibility'].flatMap((queue) => [
            '--dynamic-config-value',
            `history.${queue}ProcessorMaxPollRPS=1000`,
          ]),
          // Task-queue fairness (jobs' fairnessKey, docs/operations.md): the matcher that implements it.
          '--dynamic-config-value',
          'matching.useNewMatcher=true',
          '--dynamic-config-value',
          'matching.enableFairness=true',
          ...(opts.uiCodecEndpoint ? ['--ui-codec-endpoint', opts.uiCodecEndpoint] : []),
          ...(opts.extraArgs ?? []),
        ],
        // Keep the dev server quiet but fast: short workflow/activity dispatch latency.
        log: { format: 'pretty', level: 'error' },
      },
    }),
  );
  return {
    env,
    address: env.address,
    uiUrl: uiPort ? `http://127.0.0.1:${uiPort}` : undefined,
    namespace: env.namespace ?? 'default',
    cliVersion: cli.version ?? (cli.path ? `the CLI at ${cli.path}` : 'downloaded by the SDK'),
    teardown: () => env.teardown(),
  };
}
