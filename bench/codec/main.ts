// The cost of payload encryption (issue 17), measured side by side in one run: our worker (src/worker.ts,
// in a process of its own) once without keys and once with PAYLOAD_ENCRYPTION_KEYS, each on its own task
// queue of one dev server and one sandbox; many short rounds alternate off / on so that warm-up and other
// load on the machine fall on both alike, and the median round is reported. A round starts its jobs at once
// and ends with the last result: jobs per second = jobs / seconds. Also CPU per job (the worker process and
// this client, from /proc and process.cpuUsage: less sensitive to other load than wall time), the stored
// history size per job and the codec's own speed on a job input.
// Writes bench/results/codec.json. Run: `tsx bench/codec/main.ts [--jobs 40] [--rounds 6]` (per mode).
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Client } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { encryptionDataConverter } from '../../src/codec/data-converter.js';
import { PayloadEncryptionCodec } from '../../src/codec/encryption-codec.js';
import { newPayloadKey, parsePayloadKeys } from '../../src/codec/keys.js';
import { startDevServer } from '../../src/dev/temporal-dev-server.js';
import type { ReviewThenGenerateInput } from '../../src/job/input.js';
import { sandboxServiceEnv, startServices } from '../../test/support/services-stack.js';
import { spawnWorkerProcess, type WorkerProcess } from '../../test/support/worker-command.js';
import { describeMachine } from '../lib/machine.js';
import { cpuSeconds, loadAverage } from '../lib/proc.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const { values: args } = parseArgs({
  options: {
    jobs: { type: 'string', default: '40' },
    rounds: { type: 'string', default: '6' },
    out: { type: 'string' },
  },
});
const JOBS = Number(args.jobs);
const ROUNDS = Number(args.rounds);
const KEYS = `bench:${newPayloadKey()}`;
type Mode = 'off' | 'on';

const round1 = (n: number) => Math.round(n * 10) / 10;
const round2 = (n: number) => Math.round(n * 100) / 100;
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

/** A polling job (no receiver to measure) with a prompt and one image, as a client would send it. */
const input = (i: number): ReviewThenGenerateInput => ({
  task: {
    model: 'video-model-1',
    content: [
      { type: 'text', text: `A person walks along the beach at sunset, take ${i}` },
      { type: 'image_url', image_url: { url: `https://cdn.example.com/people/p${i}.jpg` }, role: 'reference_image' },
    ],
    ratio: '16:9',
    duration: 5,
    resolution: '720p',
  },
  review: {},
  callbacks: false,
  timing: { reviewMinQueryIntervalMs: 200, videoPollIntervalMs: 200 },
});

/**
 * CPU time of one encode + decode of a job input payload through the codec (process.cpuUsage: not inflated
 * when other processes share the cores), and the same as a rate on one free core.
 */
async function codecSpeed(): Promise<{ payloadBytes: number; cpuMicrosPerEncodeDecode: number }> {
  const codec = new PayloadEncryptionCodec(parsePayloadKeys(KEYS));
  const payload = defaultPayloadConverter.toPayload(input(1))!;
  const cpu = process.cpuUsage();
  let n = 0;
  for (; n < 20_000; n++) await codec.decode(await codec.encode([payload]));
  const used = process.cpuUsage(cpu);
  return { payloadBytes: payload.data!.length, cpuMicrosPerEncodeDecode: round2((used.user + used.system) / n) };
}

async function main() {
  const server = await startDevServer({ ui: false });
  // The services as every stack has them (test/support/services-stack.ts); the jobs poll: no receiver.
  const services = await startServices({ sandbox: { reviewDurationMs: 100, videoDurationMs: 100 } });
  const queues: Record<Mode, string> = { off: `codec-bench-off-${randomUUID()}`, on: `codec-bench-on-${randomUUID()}` };
  const base = {
    TEMPORAL_ADDRESS: server.address,
    TEMPORAL_NAMESPACE: server.namespace,
    TEMPORAL_PROFILE: '',
    ...sandboxServiceEnv(services.sandbox),
    CALLBACK_PUBLIC_URL: '',
    PAYLOAD_ENCRYPTION_KEYS_FILE: '',
  };
  const workerOf: Record<Mode, WorkerProcess> = {
    off: await spawnWorkerProcess({ ...base, TEMPORAL_TASK_QUEUE: queues.off, PAYLOAD_ENCRYPTION_KEYS: '' }),
    on: await spawnWorkerProcess({ ...base, TEMPORAL_TASK_QUEUE: queues.on, PAYLOAD_ENCRYPTION_KEYS: KEYS }),
  };
  const workers = Object.values(workerOf);
  const machine = describeMachine(server.cliVersion);
  const clients: Record<Mode, Client> = {
    off: new Client({ connection: server.env.connection, namespace: server.namespace }),
    on: new Client({
      connection: server.env.connection,
      namespace: server.namespace,
      dataConverter: encryptionDataConverter(parsePayloadKeys(KEYS)),
    }),
  };
  const runRound = async (mode: Mode, jobs: number) => {
    const workerCpu = cpuSeconds(workerOf[mode].pid) ?? NaN;
    const clientCpu = process.cpuUsage();
    const started = performance.now();
    const ids = await Promise.all(
      Array.from({ length: jobs }, async (_, i) => {
        const handle = await clients[mode].workflow.start('ReviewThenGenerate', {
          taskQueue: queues[mode],
          workflowId: `codec-bench-${mode}-${randomUUID()}`,
          args: [input(i)],
        });
        await handle.result();
        return handle.workflowId;
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const client = process.cpuUsage(clientCpu);
    return {
      mode,
      jobs,
      seconds: round2(seconds),
      jobsPerSecond: round2(jobs / seconds),
      workerCpuSeconds: round2((cpuSeconds(workerOf[mode].pid) ?? NaN) - workerCpu),
      clientCpuSeconds: round2((client.user + client.system) / 1e6),
      ids,
    };
  };
  try {
    // Warm-up (not counted): JIT, sticky caches, connection pools.
    for (const mode of ['off', 'on'] as const) await runRound(mode, Math.min(20, JOBS));
    const rounds: Awaited<ReturnType<typeof runRound>>[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      for (const mode of r % 2 === 0 ? (['off', 'on'] as const) : (['on', 'off'] as const)) {
        const result = await runRound(mode, JOBS);
        console.log(
          `codec bench: ${mode} round ${r + 1}: ${JOBS} jobs in ${result.seconds} s = ${result.jobsPerSecond} jobs/s, worker CPU ${result.workerCpuSeconds} s`,
        );
        rounds.push(result);
      }
    }
    const summary = async (mode: Mode) => {
      const own = rounds.filter((r) => r.mode === mode);
      const jobs = own.reduce((n, r) => n + r.jobs, 0);
      const seconds = own.reduce((n, r) => n + r.seconds, 0);
      const sample = own.flatMap((r) => r.ids).slice(0, 20);
      const sizes = await Promise.all(
        sample.map(
          async (id) =>
            (await clients.off.workflow.getHandle(id).describe()).raw.workflowExecutionInfo?.historySizeBytes,
        ),
      );
      const bytes = sizes.reduce((n: number, s) => n + Number(s ?? 0), 0) / sample.length;
      // Payloads stored encrypted (metadata `binary/encrypted`, base64 in the history's JSON form).
      const encrypted = await Promise.all(
        sample.map(async (id) => {
          const text = JSON.stringify(await clients.off.workflow.getHandle(id).fetchHistory());
          return text.split(Buffer.from('binary/encrypted').toString('base64')).length - 1;
        }),
      );
      const perJobMs = (k: 'workerCpuSeconds' | 'clientCpuSeconds') =>
        round1((own.reduce((n, r) => n + r[k], 0) / jobs) * 1000);
      return {
        jobs,
        seconds: round2(seconds),
        jobsPerSecond: round2(jobs / seconds),
        medianRoundJobsPerSecond: round2(median(own.map((r) => r.jobsPerSecond))),
        workerCpuMsPerJob: perJobMs('workerCpuSeconds'),
        clientCpuMsPerJob: perJobMs('clientCpuSeconds'),
        historyBytesPerJob: Math.round(bytes),
        encryptedPayloadsPerJob: round1(encrypted.reduce((n, e) => n + e, 0) / sample.length),
      };
    };
    const off = await summary('off');
    const on = await summary('on');
    const figures = {
      date: new Date().toISOString(),
      // Other processes on the machine show here: the rounds alternate so that both modes share them.
      machine: { ...machine, loadAverageAtEnd: loadAverage() },
      setup:
        'one dev server, one sandbox (review 100 ms, video 100 ms), polling jobs (200 ms intervals); our worker process (src/worker.ts) per mode on its own task queue; rounds alternate off/on after a 20-job warm-up each; the jobs of a round start at once',
      jobsPerRound: JOBS,
      rounds: rounds.map(({ ids: _ids, ...r }) => r),
      off,
      on,
      // Throughput lost with encryption (median rounds), and the extra CPU the worker spends per job.
      costPercent: round1((1 - on.medianRoundJobsPerSecond / off.medianRoundJobsPerSecond) * 100),
      workerCpuCostPercent: round1((on.workerCpuMsPerJob / off.workerCpuMsPerJob - 1) * 100),
      historyGrowthPercent: round1((on.historyBytesPerJob / off.historyBytesPerJob - 1) * 100),
      codec: await codecSpeed(),
    };
    // What the codec itself costs a job: each stored payload encrypted once and decrypted at least once.
    const codecMsPerJob = round2((on.encryptedPayloadsPerJob * figures.codec.cpuMicrosPerEncodeDecode) / 1000);
    Object.assign(figures.codec, { estimatedCpuMsPerJob: codecMsPerJob });
    const out = args.out ?? `${ROOT}bench/results/codec.json`;
    writeFileSync(out, `${JSON.stringify(figures, null, 2)}\n`);
    console.log(
      `codec bench: median round off ${off.medianRoundJobsPerSecond} jobs/s, on ${on.medianRoundJobsPerSecond} jobs/s (cost ${figures.costPercent} %); worker CPU ${off.workerCpuMsPerJob} -> ${on.workerCpuMsPerJob} ms/job; history ${off.historyBytesPerJob} -> ${on.historyBytesPerJob} bytes/job; codec ${figures.codec.cpuMicrosPerEncodeDecode} µs CPU per encode+decode, ${on.encryptedPayloadsPerJob} payloads/job = ${codecMsPerJob} ms/job; wrote ${out.replace(ROOT, '')}`,
    );
  } finally {
    await Promise.all(workers.map((w) => w.stop()));
    await services.close();
    await server.teardown();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(`codec bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exit(1);
  },
);
