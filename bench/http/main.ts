// Scenario 7 in its own process: requests per second against the sandbox with the package's undici Pool
// (ServiceHttp, as VideoClient uses it, at several pool sizes), the full VideoClient (pool + validation),
// and Node's global fetch, each for the same time with the same number of requests in flight.
import { ServiceHttp } from '../../src/services/http.js';
import { VideoClient } from '../../src/services/video/client.js';
import { summarize, type Summary } from '../lib/stats.js';

export interface HttpBenchConfig {
  baseUrl: string;
  apiKey: string;
  taskId: string;
  /** Each variant runs this long (after a warm-up that opens its connections). */
  seconds: number;
  inFlight: number;
  poolSizes: number[];
}

export interface HttpVariantResult {
  variant: string;
  requests: number;
  inFlight: number;
  errors: number;
  seconds: number;
  requestsPerSecond: number;
  latencyMs: Summary;
  cpuMsPerRequest: number;
}

const config = JSON.parse(process.env.BENCH_HTTP_CONFIG ?? '{}') as HttpBenchConfig;
const path = `/v1/task/get/${encodeURIComponent(config.taskId)}`;
const headers = { authorization: `Bearer ${config.apiKey}` };

async function measure(variant: string, call: () => Promise<unknown>): Promise<HttpVariantResult> {
  // Warm-up: open the connections first, so the figure is the steady rate.
  await Promise.all(Array.from({ length: Math.min(config.inFlight, 64) }, () => call().catch(() => undefined)));
  const latencies: number[] = [];
  let errors = 0;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const end = t0 + config.seconds * 1000;
  const lane = async () => {
    while (performance.now() < end) {
      const s = performance.now();
      try {
        await call();
      } catch {
        errors++;
      }
      latencies.push(performance.now() - s);
    }
  };
  await Promise.all(Array.from({ length: config.inFlight }, lane));
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const lat = summarize(latencies);
  const r = (n: number) => Math.round(n * 100) / 100;
  return {
    variant,
    requests: latencies.length,
    inFlight: config.inFlight,
    errors,
    seconds: r(seconds),
    requestsPerSecond: r(latencies.length / seconds),
    latencyMs: {
      ...lat,
      mean: r(lat.mean),
      min: r(lat.min),
      p50: r(lat.p50),
      p95: r(lat.p95),
      p99: r(lat.p99),
      max: r(lat.max),
    },
    cpuMsPerRequest: r((cpu.user + cpu.system) / 1000 / latencies.length),
  };
}

const results: HttpVariantResult[] = [];
for (const connections of config.poolSizes) {
  const http = new ServiceHttp({
    service: 'video',
    baseUrl: config.baseUrl,
    timeoutMs: 30_000,
    secrets: [config.apiKey],
    connections,
  });
  results.push(
    await measure(`undici Pool (ServiceHttp), ${connections} connections`, () =>
      http.send({ operation: 'video.get', method: 'GET', path, headers }),
    ),
  );
  await http.close();
}
const client = new VideoClient({
  baseUrl: config.baseUrl,
  apiKey: config.apiKey,
  cancelMethod: 'POST',
  cancelPath: '/v1/task/cancel/{id}',
  timeoutMs: 30_000,
});
results.push(await measure('VideoClient.getTask (Pool 32 + validation)', () => client.getTask(config.taskId)));
await client.close();
results.push(
  await measure('global fetch', async () => {
    const res = await fetch(config.baseUrl + path, { headers: { accept: 'application/json', ...headers } });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    return (await res.json()) as unknown;
  }),
);
// Disconnect only once the report has been handed over.
process.send?.(results, () => process.disconnect?.());
