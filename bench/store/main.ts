// The store benchmark (issue 18): one job stores a 1 GiB video from the sandbox to a local-folder
// VIDEO_STORE, on a worker in a process of its own. Reports the copy's throughput and the worker's peak RSS
// against its idle RSS (sampled from /proc every 50 ms), and writes them to bench/results/store.json.
// Run by `npm run bench` (full plan), or alone: `tsx bench/store/main.ts [--mib 1024]`.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { startDevServer } from '../../src/dev/temporal-dev-server.js';
import type { ReviewThenGenerate } from '../../src/workflows/review-then-generate.js';
import { sandboxServiceEnv, startServices } from '../../test/support/services-stack.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const MiB = 1024 * 1024;
const { values: args } = parseArgs({ options: { mib: { type: 'string', default: '1024' }, out: { type: 'string' } } });

/** Resident set of a process in MiB (Linux /proc), or undefined. */
function rssMiB(pid: number): number | undefined {
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? Number(kb) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const round = (n: number) => Math.round(n * 10) / 10;

async function main() {
  const bytes = Number(args.mib) * MiB;
  const server = await startDevServer({ ui: false });
  // The services as every stack has them (test/support/services-stack.ts); the job polls: no receiver.
  const services = await startServices({ sandbox: { videoFileBytes: bytes, videoDurationMs: 300 } });
  const { sandbox } = services;
  const dir = mkdtempSync(join(tmpdir(), 'rtg-store-bench-'));
  const taskQueue = `store-bench-${randomUUID()}`;
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./worker.ts', import.meta.url))], {
    env: {
      ...process.env,
      TEMPORAL_ADDRESS: server.address,
      TEMPORAL_NAMESPACE: server.namespace,
      TEMPORAL_TASK_QUEUE: taskQueue,
      ...sandboxServiceEnv(sandbox),
      VIDEO_STORE: pathToFileURL(dir).href,
    },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  try {
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (d: Buffer) => d.toString().includes('ready') && resolve());
      child.once('exit', (code) => reject(new Error(`worker exited (${code}) before it was ready`)));
    });
    // Idle: after start-up settled, before any job.
    await sleep(3_000);
    const idleSamples: number[] = [];
    for (let i = 0; i < 20; i++, await sleep(50)) idleSamples.push(rssMiB(child.pid!) ?? NaN);
    const idle = Math.max(...idleSamples);

    const handle = await server.env.client.workflow.start<typeof ReviewThenGenerate>('ReviewThenGenerate', {
      taskQueue,
      workflowId: `store-bench-${randomUUID()}`,
      args: [
        {
          task: { model: 'video-model-1', content: [{ type: 'text', text: 'a long video to keep' }] },
          callbacks: false,
          store: true,
          timing: { videoPollIntervalMs: 200 },
        },
      ],
    });
    let peak = idle;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        peak = Math.max(peak, rssMiB(child.pid!) ?? 0);
        await sleep(50);
      }
    })();
    const result = await handle.result().finally(() => (sampling = false));
    await sampler;
    const finishedAt = Date.now();
    const download = sandbox.requests().find((r) => r.path.startsWith('/videos/'));
    const seconds = (finishedAt - (download?.at ?? finishedAt)) / 1000;
    if (result.stored?.bytes !== bytes) throw new Error(`stored ${result.stored?.bytes} bytes, expected ${bytes}`);
    const figures = {
      date: new Date().toISOString(),
      store: 'file (local folder)',
      bytes,
      seconds: round(seconds),
      throughputMiBPerSecond: round(bytes / MiB / seconds),
      workerRssIdleMiB: round(idle),
      workerRssPeakMiB: round(peak),
      workerRssGrowthMiB: round(peak - idle),
      sha256: result.stored.sha256,
      note: 'seconds: from the first byte requested to the run result (download, hash and write, then completion)',
    };
    const out = args.out ?? `${ROOT}bench/results/store.json`;
    writeFileSync(out, `${JSON.stringify(figures, null, 2)}\n`);
    console.log(
      `store: ${bytes / MiB} MiB in ${figures.seconds} s (${figures.throughputMiBPerSecond} MiB/s); worker RSS idle ${figures.workerRssIdleMiB} MiB, peak ${figures.workerRssPeakMiB} MiB (+${figures.workerRssGrowthMiB} MiB); wrote ${out.replace(ROOT, '')}`,
    );
  } finally {
    child.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
    await services.close();
    await server.teardown();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(`store bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exit(1);
  },
);
