// docs/local.md's recipe run as a user would: `npm run dev` (on ports from the OS), a job submitted with
// the CLI using the environment it printed, `status` showing the video's address, then Ctrl-C (SIGINT to
// its process group, as a terminal sends it): exit 0, every printed port closed, the video folder gone.
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cliPath, repoRoot } from '../support/run-cli.js';
import { cleanEnv, listening, printedEnv, startEntry, startNpmScript } from './process.js';

const tmp = mkdtempSync(join(tmpdir(), 'dev-stack-test-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('npm run dev (docs/local.md)', () => {
  it('starts the stack, serves a job submitted with the CLI, and stops cleanly on SIGINT', async () => {
    const dev = startNpmScript(['run', 'dev', '--', '--port', '0', '--ui-port', '0'], { ...cleanEnv(), TMPDIR: tmp });
    try {
      await dev.waitFor('local stack ready');
      const env = printedEnv(dev.stdout);
      expect(Object.keys(env)).toEqual([
        'TEMPORAL_ADDRESS',
        'TEMPORAL_NAMESPACE',
        'TEMPORAL_TASK_QUEUE',
        'VIDEO_API_BASE_URL',
        'VIDEO_API_KEY',
        'REVIEW_API_BASE_URL',
        'REVIEW_ACCESS_TOKEN',
        'CALLBACK_PUBLIC_URL',
        'CALLBACK_SECRET',
        'ALLOW_PRIVATE_URLS',
      ]);
      expect(dev.stdout).toContain(`Temporal Web UI: http://127.0.0.1:`);
      expect(dev.stdout).toContain(`(API key ${env.VIDEO_API_KEY})`);
      expect(dev.stdout).toContain(`(access token ${env.REVIEW_ACCESS_TOKEN})`);
      // Every address printed, to check each is closed after Ctrl-C.
      const ports = [...new Set([...dev.stdout.matchAll(/127\.0\.0\.1:(\d+)/g)].map((m) => Number(m[1])))];
      expect(ports.length).toBeGreaterThanOrEqual(6);
      for (const port of ports) expect(await listening('127.0.0.1', port)).toBe(true);

      // Only the printed caller lines: what a user pastes.
      const callerEnv = {
        ...cleanEnv(),
        TEMPORAL_ADDRESS: env.TEMPORAL_ADDRESS,
        TEMPORAL_NAMESPACE: env.TEMPORAL_NAMESPACE,
        TEMPORAL_TASK_QUEUE: env.TEMPORAL_TASK_QUEUE,
        TEMPORAL_PROFILE: '',
      };
      const jobFile = join(repoRoot, 'test/client/fixtures/readme-job.json');
      const submit = startEntry(
        [cliPath, 'submit', '--key', 'local-recipe-1', '--input-file', jobFile, '--wait'],
        callerEnv,
      );
      expect(await submit.exited, submit.stderr).toBe(0);
      expect(submit.stdout).toContain('local-recipe-1: succeeded');

      const status = startEntry([cliPath, 'status', 'local-recipe-1'], callerEnv);
      expect(await status.exited, status.stderr).toBe(0);
      expect(status.stdout).toContain('COMPLETED');
      const video = new RegExp(`^video: (${env.VIDEO_API_BASE_URL}/videos/\\S+\\.mp4)`, 'm').exec(status.stdout)?.[1];
      expect(video, status.stdout).toBeDefined();
      const res = await fetch(video!);
      expect(res.status).toBe(200);
      expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(0);

      dev.interrupt();
      expect(await dev.exited, dev.stderr).toBe(0);
      expect(dev.stdout).toContain('SIGINT: stopping everything');
      for (const port of ports) expect(await listening('127.0.0.1', port), `port ${port}`).toBe(false);
      expect(readdirSync(tmp).filter((f) => f.startsWith('review-video-dev-'))).toEqual([]);
    } finally {
      dev.kill();
    }
  }, 300_000);
});

describe('npm run demo', () => {
  const storedPath = (stdout: string) => /^stored: (\S+)/m.exec(stdout)?.[1];

  it('removes the video it wrote and its temporary folder', async () => {
    const dir = mkdtempSync(join(tmp, 'demo-'));
    const demo = startEntry(['src/dev/demo.ts'], { ...cleanEnv(), TMPDIR: dir });
    expect(await demo.exited, demo.stderr).toBe(0);
    const stored = storedPath(demo.stdout);
    expect(stored?.startsWith(dir)).toBe(true);
    expect(existsSync(stored!)).toBe(false);
    expect(readdirSync(dir).filter((f) => f.startsWith('review-video-demo-'))).toEqual([]);
  }, 300_000);

  it('--keep: keeps the stack up for the Web UI until SIGINT, then exits 0 and keeps the video', async () => {
    const dir = mkdtempSync(join(tmp, 'demo-keep-'));
    const demo = startEntry(['src/dev/demo.ts', '--keep'], { ...cleanEnv(), TMPDIR: dir });
    try {
      await demo.waitFor('Ctrl-C stops it');
      const ui = /^Temporal Web UI: (http:\S+)/m.exec(demo.stdout)?.[1];
      expect((await fetch(ui!)).status).toBe(200);
      const port = Number(/127\.0\.0\.1:(\d+)/.exec(printedEnv(demo.stdout).TEMPORAL_ADDRESS ?? '')?.[1]);
      expect(await listening('127.0.0.1', port)).toBe(true);
      demo.child.kill('SIGINT');
      expect(await demo.exited, demo.stderr).toBe(0);
      expect(await listening('127.0.0.1', port)).toBe(false);
      expect(existsSync(storedPath(demo.stdout)!)).toBe(true);
    } finally {
      demo.child.kill('SIGKILL');
    }
  }, 300_000);
});
