// Scenario 7: the HTTP client alone against the sandbox, in a separate process so that the client and
// the sandbox do not share one event loop.
import { runChild } from '../lib/child.js';
import type { ProfileEnv } from '../lib/harness.js';
import type { HttpBenchConfig, HttpVariantResult } from '../http/main.js';
import { VideoClient } from '../../src/services/video/client.js';

export async function runHttpBench(
  env: Pick<ProfileEnv, 'sandbox'>,
  o: { seconds: number; inFlight: number; poolSizes: number[] },
): Promise<HttpVariantResult[]> {
  const { sandbox } = env;
  sandbox.reset();
  const client = new VideoClient({
    baseUrl: sandbox.videoBaseUrl,
    apiKey: sandbox.apiKey,
    cancelMethod: 'POST',
    cancelPath: '/v1/task/cancel/{id}',
    timeoutMs: 10_000,
  });
  const { id } = await client.createTask({
    model: 'video-model-1',
    content: [{ type: 'text', text: 'http client benchmark' }],
  });
  await client.close();
  const config: HttpBenchConfig = { baseUrl: sandbox.videoBaseUrl, apiKey: sandbox.apiKey, taskId: id, ...o };
  const results = await runChild<HttpVariantResult[]>('http/main.ts', 'BENCH_HTTP_CONFIG', config, 600_000);
  sandbox.reset();
  return results;
}
