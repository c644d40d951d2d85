// The package's own processes, run as a user would: the worker (clear exit when Temporal is unreachable,
// clean stop on SIGTERM) and the README's main-job command (`npm run demo`: exits 0, leaves nothing behind).
import { spawn, spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { freePort } from '../src/dev/temporal-dev-server.js';
import { startSandbox } from 'temporal-review-video-sandbox';
import { temporalAddress } from './support/temporal.js';

function run(
  args: string[],
  env: Record<string, string>,
  onStdout?: (text: string, kill: (s: NodeJS.Signals) => void) => void,
) {
  return new Promise<{ code: number | null; stdout: string; stderr: string; pid: number }>((resolve) => {
    const child = spawn(process.execPath, ['--conditions=review-video-source', '--import', 'tsx', ...args], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      onStdout?.(stdout, (s) => child.kill(s));
    });
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('exit', (code) => resolve({ code, stdout, stderr, pid: child.pid ?? 0 }));
  });
}

const serviceEnv = {
  VIDEO_API_BASE_URL: 'http://127.0.0.1:9/video',
  VIDEO_API_KEY: 'k-test',
  REVIEW_API_BASE_URL: 'http://127.0.0.1:9/review',
  REVIEW_ACCESS_TOKEN: 't-test',
};

describe('worker process', () => {
  it('exits 1 with one clear line when the Temporal server cannot be reached', async () => {
    const port = await freePort();
    const r = await run(['src/worker.ts'], { ...serviceEnv, TEMPORAL_ADDRESS: `127.0.0.1:${port}` });
    expect(r.code).toBe(1);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^worker: cannot reach the Temporal server at 127\\.0\\.0\\.1:${port}`));
  });

  it('refuses an invalid configuration naming the variable, without printing secrets', async () => {
    const r = await run(['src/worker.ts'], {
      ...serviceEnv,
      VIDEO_API_BASE_URL: 'not a url',
      VIDEO_API_KEY: 'super-secret-key',
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('VIDEO_API_BASE_URL');
    expect(r.stderr).not.toContain('super-secret-key');
  });

  it('refuses a WORKFLOW_BUNDLE_PATH that names no file, before connecting', async () => {
    // The Temporal address is unreachable too: the variable is named first, as every other setting is.
    const r = await run(['src/worker.ts'], {
      ...serviceEnv,
      TEMPORAL_ADDRESS: `127.0.0.1:${await freePort()}`,
      WORKFLOW_BUNDLE_PATH: '/nonexistent/workflow-bundle.js',
    });
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe('worker: invalid configuration: WORKFLOW_BUNDLE_PATH names no file');
  });

  it('refuses a private CALLBACK_PUBLIC_URL at start unless ALLOW_PRIVATE_URLS=true', async () => {
    const r = await run(['src/worker.ts'], {
      ...serviceEnv,
      CALLBACK_PUBLIC_URL: 'http://127.0.0.1:8787',
      CALLBACK_SECRET: 'cb-secret-0123456789abcdef',
    });
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toMatch(
      /^worker: invalid configuration: CALLBACK_PUBLIC_URL must be a public address .*ALLOW_PRIVATE_URLS=true/,
    );
    expect(r.stderr).not.toContain('cb-secret-0123456789abcdef');
  });

  it('connects, polls, prints ALLOW_PRIVATE_URLS, and stops cleanly on SIGTERM', async () => {
    const sandbox = await startSandbox({ allowPrivateUrls: true });
    try {
      const r = await run(
        ['src/worker.ts'],
        {
          TEMPORAL_ADDRESS: temporalAddress(),
          TEMPORAL_TASK_QUEUE: `proc-${Date.now()}`,
          VIDEO_API_BASE_URL: sandbox.videoBaseUrl,
          VIDEO_API_KEY: sandbox.apiKey,
          REVIEW_API_BASE_URL: sandbox.reviewBaseUrl,
          REVIEW_ACCESS_TOKEN: sandbox.accessToken,
          WORKER_MAX_CACHED_WORKFLOWS: '500',
          WORKER_MAX_CONCURRENT_ACTIVITIES: '64',
          // A loopback callback address, accepted only because of the explicit setting.
          CALLBACK_PUBLIC_URL: 'http://127.0.0.1:8787',
          CALLBACK_SECRET: 'cb-secret-0123456789abcdef',
          ALLOW_PRIVATE_URLS: 'true',
        },
        (out, kill) => {
          if (out.includes('worker: sticky cache')) kill('SIGTERM');
        },
      );
      // Non-TTY stdout: one JSON event a line (LOG_FORMAT unset), the startup lines among them.
      const events = r.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { level: string; component: string; msg: string; [k: string]: unknown });
      const event = (prefix: string) => events.find((e) => e.msg.startsWith(prefix));
      expect(event('worker: task queue')).toMatchObject({ level: 'info', component: 'worker', callbacks: 'on' });
      expect(event('worker: ALLOW_PRIVATE_URLS=true')).toMatchObject({
        level: 'warn',
        msg: 'worker: ALLOW_PRIVATE_URLS=true: loopback/private media and callback addresses accepted (sandbox/tests only)',
        allowPrivateUrls: true,
      });
      // The sizing variables reach Worker.create; the unset one keeps the SDK's default.
      expect(event('worker: sticky cache')).toMatchObject({
        msg: 'worker: sticky cache 500 workflows, 40 workflow tasks and 64 activities at once',
        maxCachedWorkflows: 500,
        workflowTasks: 40,
        activities: 64,
      });
      expect(event('worker: stopped')).toMatchObject({ level: 'info' });
      expect(r.code).toBe(0);
    } finally {
      await sandbox.close();
    }
  });
});

describe('npm run demo (the README main-job command)', () => {
  it('runs one ReviewThenGenerate job on embedded defaults, exits 0 and leaves no process behind', async () => {
    const r = await run(['src/dev/demo.ts'], {});
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Temporal dev server temporal version \S+/);
    expect(r.stdout).toMatch(/Temporal Web UI: http:\/\/127\.0\.0\.1:\d+/);
    expect(r.stdout).toMatch(/done: task \S+ succeeded/);
    expect(r.stdout).toContain('"video.create":1');
    const address = /Temporal dev server .* at (\S+)/.exec(r.stdout)?.[1];
    expect(address).toBeDefined();
    const port = address!.split(':').pop()!;
    const ps = spawnSync('ps', ['-eo', 'pid,ppid,args'], { encoding: 'utf8' }).stdout;
    const leftovers = ps.split('\n').filter((l) => l.includes('start-dev') && l.includes(`--port ${port}`));
    expect(leftovers).toEqual([]);
    expect(ps.split('\n').filter((l) => new RegExp(`^\\s*\\d+\\s+${r.pid}\\s`).test(l))).toEqual([]);
  }, 180_000);
});
