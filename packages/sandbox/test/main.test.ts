// The standalone process (npm run sandbox): starts from env, prints one line with both base URLs,
// answers with the fixed dev credentials, and stops cleanly on SIGTERM.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { Http, trackId, waitFor } from './support/sandbox-http.js';

const http = new Http();
/** The package's folder: its `src/main.ts` runs from there, as `npm run start` does. */
const pkg = fileURLToPath(new URL('../', import.meta.url));
let child: ChildProcess | undefined;
afterAll(async () => {
  await http.close();
  // Only if the test failed half-way: the group we started.
  if (child?.pid !== undefined && child.exitCode === null) process.kill(-child.pid, 'SIGKILL');
});

/**
 * `npm run sandbox` in its own process group on free ports, with long videos and `env` on top; resolves
 * at its ready line (the two base URLs: line[1] video, line[2] review).
 */
async function startSandboxProcess(env: Record<string, string>) {
  child = spawn('npx', ['tsx', 'src/main.ts'], {
    cwd: pkg,
    env: {
      ...process.env,
      SANDBOX_VIDEO_PORT: '0',
      SANDBOX_REVIEW_PORT: '0',
      SANDBOX_VIDEO_DURATION_MS: '600000',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'ignore'],
    detached: true,
  });
  const started = child;
  const out = { text: '' };
  started.stdout!.on('data', (c: Buffer) => (out.text += c.toString()));
  const exited = new Promise<void>((resolve) => started.once('exit', () => resolve()));
  const line = await waitFor(
    () => /sandbox listening: video (\S+) review (\S+)/.exec(out.text) ?? undefined,
    30_000,
    'the ready line',
  );
  return { stdout: out.text, line, exited };
}

describe('src/main.ts', () => {
  it('starts on free ports, answers both services with the dev credentials, and stops on SIGTERM', async () => {
    // Own process group: npx -> sh -> tsx -> node; the signal must reach the sandbox itself.
    child = spawn('npx', ['tsx', 'src/main.ts'], {
      cwd: pkg,
      env: { ...process.env, SANDBOX_VIDEO_PORT: '0', SANDBOX_REVIEW_PORT: '0', SANDBOX_REVIEW_DURATION_MS: '50' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    const exited = new Promise<void>((resolve) => child!.once('exit', () => resolve()));

    const line = await waitFor(
      () => /sandbox listening: video (\S+) review (\S+)/.exec(stdout) ?? undefined,
      30_000,
      'the ready line',
    );
    const [, videoBaseUrl, reviewBaseUrl] = line as unknown as [string, string, string];
    expect(stdout.trim().split('\n')).toHaveLength(1);

    const create = await http.call('POST', `${videoBaseUrl}/v1/task/create`, {
      headers: { authorization: 'Bearer sandbox-video-key', 'content-type': 'application/json' },
      json: { model: 'm', content: [{ type: 'text', text: 'hello' }] },
    });
    expect(create.status).toBe(200);
    const submit = await http.call('POST', `${reviewBaseUrl}/api/asset/upload/sync`, {
      headers: {
        'x-access-token': 'sandbox-review-token',
        'x-track-id': trackId(),
        'content-type': 'application/json',
      },
      json: { images: ['https://cdn.example.com/a.jpg'] },
    });
    expect(submit.json.status).toBe('completed');
    // Public addresses only, unless ALLOW_PRIVATE_URLS (next test).
    const loopback = await http.call('POST', `${reviewBaseUrl}/api/asset/upload/async`, {
      headers: {
        'x-access-token': 'sandbox-review-token',
        'x-track-id': trackId(),
        'content-type': 'application/json',
      },
      json: { images: ['https://cdn.example.com/a.jpg'], callback_url: 'http://127.0.0.1:8787/cb' },
    });
    expect(loopback.status).toBe(400);
    expect(loopback.json.error.message).toContain('callback_url: must be a public address');
    const log = await http.call('GET', `${reviewBaseUrl}/__sandbox/requests`);
    expect(log.json.map((e: { operation: string }) => e.operation)).toEqual([
      'video.create',
      'review.submitSync',
      'review.submitAsync',
    ]);

    process.kill(-child.pid!, 'SIGTERM');
    await exited;
    await waitFor(() => stdout.includes('sandbox stopped'), 10_000, 'the stop line');
    await expect(http.call('GET', `${videoBaseUrl}/__sandbox/requests`)).rejects.toThrow();
    expect(stderr).not.toContain('sandbox: error');
    expect(stderr).not.toMatch(/\n\s+at /); // no stack trace
  });

  it('ALLOW_PRIVATE_URLS=true accepts private media and callback addresses, and says so on its line', async () => {
    const { stdout, line, exited } = await startSandboxProcess({ ALLOW_PRIVATE_URLS: 'true' });
    expect(stdout).toContain('(ALLOW_PRIVATE_URLS=true: loopback/private media and callback addresses accepted)');
    const create = await http.call('POST', `${line[1]}/v1/task/create`, {
      headers: { authorization: 'Bearer sandbox-video-key', 'content-type': 'application/json' },
      json: {
        model: 'm',
        content: [
          { type: 'text', text: 'hello' },
          { type: 'image_url', image_url: { url: 'http://192.168.1.5/a.png' } },
        ],
        callback_url: 'http://127.0.0.1:9/cb',
      },
    });
    expect(create.status, create.text).toBe(200);
    process.kill(-child!.pid!, 'SIGTERM');
    await exited;
  });

  it('reads the quotas from SANDBOX_ variables and serves them on /__sandbox/quotas', async () => {
    const { line, exited } = await startSandboxProcess({
      SANDBOX_VIDEO_MAX_TASKS_IN_FLIGHT: '3',
      SANDBOX_VIDEO_MAX_TASKS_IN_FLIGHT_BY_MODEL: 'm:1,other:2',
      SANDBOX_VIDEO_MAX_CREATES_PER_MINUTE: '10',
      SANDBOX_VIDEO_QUOTA_RETRY_AFTER: 'none',
      SANDBOX_REVIEW_MAX_TASKS_IN_FLIGHT: '4',
      SANDBOX_REVIEW_MAX_SUBMITS_PER_MINUTE: '20',
      SANDBOX_REVIEW_QUOTA_RETRY_AFTER: '5',
    });
    const quotas = await http.call('GET', `${line[1]}/__sandbox/quotas`);
    expect(quotas.json.limits).toEqual({
      videoMaxTasksInFlight: 3,
      videoMaxTasksInFlightByModel: { m: 1, other: 2 },
      videoMaxCreatesPerMinute: 10,
      videoQuotaRetryAfter: 'none',
      reviewMaxTasksInFlight: 4,
      reviewMaxSubmitsPerMinute: 20,
      reviewQuotaRetryAfter: 5,
    });
    const create = () =>
      http.call('POST', `${line[1]}/v1/task/create`, {
        headers: { authorization: 'Bearer sandbox-video-key', 'content-type': 'application/json' },
        json: { model: 'm', content: [{ type: 'text', text: 'hello' }] },
      });
    expect((await create()).status).toBe(200);
    const refused = await create();
    expect([refused.status, refused.headers['retry-after']]).toEqual([429, undefined]);
    process.kill(-child!.pid!, 'SIGTERM');
    await exited;
  });
});
