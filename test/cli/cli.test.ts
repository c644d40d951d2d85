// The review-video CLI as a user or a script runs it (a child process, real dev server, sandbox over HTTP):
// help, exit codes, JSON output, submit/status/cancel, batch progress (plain lines without a TTY, a bar in
// a pseudo-terminal) and schedules.
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReviewThenGenerate } from '../../src/client/start.js';
import { newPayloadKey } from '../../src/codec/keys.js';
import { FileVideoStore } from '../../src/store/file-store.js';
import { connectClient } from '../../src/temporal/connect-client.js';
import { startStoreWorker } from '../store/support.js';
import { imageJob, startStack, type Stack } from '../support/stack.js';
import { testClient } from '../support/temporal.js';
import { cliEnv, cliPath, repoRoot, runCli } from '../support/run-cli.js';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => stack.stop());

const cli = (args: string[], stdin?: string) =>
  runCli(args, { taskQueue: stack.taskQueue, ...(stdin !== undefined ? { stdin } : {}) });
const tag = () => randomUUID().slice(0, 8);

/** `status` prints the stage on one line only, the run's own. */
function expectOneStageLine(stdout: string, stage: string) {
  const lines = stdout.split('\n').filter((l) => /\bstage\b/i.test(l));
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(new RegExp(`^stage: ${stage}\\b`));
}

describe('review-video CLI', () => {
  it('prints help for itself and each command, and exits 2 on usage errors', async () => {
    const top = await cli(['--help']);
    expect(top.code).toBe(0);
    for (const word of ['submit', 'status', 'cancel', 'batch', 'schedule', 'Exit codes:', '3  invalid input'])
      expect(top.stdout).toContain(word);
    for (const command of ['submit', 'status', 'cancel', 'batch', 'schedule']) {
      const help = await cli([command, '--help']);
      expect(help.code, command).toBe(0);
      expect(help.stdout).toContain(`Usage: review-video ${command}`);
    }
    const unknown = await cli(['frobnicate']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown command frobnicate');
    const badFlag = await cli(['submit', '--key', 'k', '--colour', 'red', '--json']);
    expect(badFlag.code).toBe(2);
    expect(JSON.parse(badFlag.stdout)).toMatchObject({ error: { code: 'usage' } });
  });

  it('submit refuses invalid input with exit 3 and starts nothing', async () => {
    const key = `cli-invalid-${tag()}`;
    const input = imageJob('https://cdn.example.com/cli/bad.gif.exe');
    const run = await cli(['submit', '--key', key, '--input', JSON.stringify(input), '--json']);
    expect(run.code).toBe(3);
    const out = JSON.parse(run.stdout) as { error: { code: string; details: { problems: Array<{ field: string }> } } };
    expect(out.error.code).toBe('invalid_input');
    expect(out.error.details.problems[0]!.field).toBe('input.task.content');
    const client = await testClient();
    await expect(client.workflow.getHandle(key).describe()).rejects.toThrow();
    expect((await cli(['status', key])).code).toBe(4);
  });

  it('submit --wait runs a job; a repeated submit returns it; status shows summary and stage', async () => {
    const key = `cli-job-${tag()}`;
    const input = JSON.stringify(imageJob('https://cdn.example.com/cli/ok.jpg'));
    const first = await cli(['submit', '--key', key, '--input-file', '-', '--wait', '--json'], input);
    expect(first.code, first.stderr).toBe(0);
    const started = JSON.parse(first.stdout) as {
      workflowId: string;
      runId: string;
      existing: boolean;
      status: string;
      result: { videoUrl: string };
    };
    expect(started).toMatchObject({ workflowId: key, existing: false, status: 'succeeded' });
    expect(started.result.videoUrl).toMatch(/\.mp4$/);

    const again = await cli(['submit', '--key', key, '--input', input]);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`already started (run ${started.runId})`);

    const status = await cli(['status', key, '--json']);
    expect(status.code).toBe(0);
    const d = JSON.parse(status.stdout) as {
      status: string;
      staticSummary: string;
      searchAttributes: { ReviewStage: string };
      progress: { stage: string };
    };
    expect(d).toMatchObject({
      status: 'COMPLETED',
      searchAttributes: { ReviewStage: 'generating' },
      progress: { stage: 'succeeded' },
    });
    expect(d.staticSummary).toContain('video-model-1 · 1 media');
    const text = await cli(['status', key]);
    expect(text.stdout).toContain('summary: video-model-1 · 1 media');
    expect(text.stdout).toContain('COMPLETED');
    // One stage line, the run's own (the index keeps the last working stage, `generating`).
    expectOneStageLine(text.stdout, 'succeeded');
    expect(text.stdout).toContain(`video: ${started.result.videoUrl}`);
  });

  it('submit --wait and status of a stored job say where the video is: its address and the stored copy', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rtg-cli-store-'));
    const storing = await startStack({ noWorker: true });
    const worker = await startStoreWorker(storing, new FileVideoStore(dir));
    try {
      const key = `cli-stored-${tag()}`;
      const input = JSON.stringify(imageJob('https://cdn.example.com/cli/stored.jpg', { store: true }));
      const run = await runCli(['submit', '--key', key, '--input', input, '--wait'], { taskQueue: storing.taskQueue });
      expect(run.code, run.stderr).toBe(0);
      const result = (await (await testClient()).workflow.getHandle(key).result()) as {
        videoUrl: string;
        stored: { url: string; bytes: number; sha256: string };
      };
      expect(result.stored.url).toMatch(/^file:\/\//);
      expect(run.stdout).toContain(`video: ${result.videoUrl}`);
      expect(run.stdout).toContain(
        `stored: ${result.stored.url} (${result.stored.bytes} bytes, sha256 ${result.stored.sha256})`,
      );

      const status = await runCli(['status', key], { taskQueue: storing.taskQueue });
      expect(status.code, status.stderr).toBe(0);
      expect(status.stdout).toContain(`video: ${result.videoUrl}`);
      expect(status.stdout).toContain(
        `stored: ${result.stored.url} (${result.stored.bytes} bytes, sha256 ${result.stored.sha256})`,
      );
      expectOneStageLine(status.stdout, 'succeeded');
    } finally {
      await worker.stop();
      await storing.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a job whose payloads are encrypted, read without the keys: the error names PAYLOAD_ENCRYPTION_KEYS', async () => {
    const key = `cli-encrypted-${tag()}`;
    const keys = `cli-1:${newPayloadKey()}`;
    const encrypting = await connectClient({ ...cliEnv(stack.taskQueue), PAYLOAD_ENCRYPTION_KEYS: keys });
    try {
      // A queue no worker polls: the run only has to exist, with its payloads encrypted.
      await startReviewThenGenerate(encrypting.client, {
        businessKey: key,
        input: imageJob('https://cdn.example.com/cli/encrypted.jpg'),
        taskQueue: `cli-no-worker-${tag()}`,
      });
      const run = await runCli(['status', key], {
        taskQueue: stack.taskQueue,
        env: { PAYLOAD_ENCRYPTION_KEYS: undefined, PAYLOAD_ENCRYPTION_KEYS_FILE: undefined },
      });
      expect(run.code).toBe(6);
      expect(run.stderr).toContain('Unknown encoding: binary/encrypted');
      expect(run.stderr).toMatch(/encrypted.*set PAYLOAD_ENCRYPTION_KEYS \(or PAYLOAD_ENCRYPTION_KEYS_FILE\)/);
    } finally {
      await (await testClient()).workflow.getHandle(key).terminate('test over');
      await encrypting.close();
    }
  });

  it('cancel cancels a running job and reports a closed one without error', async () => {
    const key = `cli-cancel-${tag()}`;
    stack.sandbox.setVideoOutcome({ promptIncludes: `cli-slow-${key}` }, 'succeeded', 300_000);
    const input = imageJob('https://cdn.example.com/cli/slow.jpg');
    input.task.content = [
      { type: 'text', text: `cli-slow-${key}` },
      ...(input.task.content as unknown[]).slice(1),
    ] as typeof input.task.content;
    expect((await cli(['submit', '--key', key, '--input', JSON.stringify(input)])).code).toBe(0);
    const cancelled = await cli(['cancel', key, '--wait', '--json']);
    expect(cancelled.code, cancelled.stderr).toBe(0);
    expect(JSON.parse(cancelled.stdout)).toEqual({ workflowId: key, cancelRequested: true, status: 'CANCELLED' });
    const again = await cli(['cancel', key, '--json']);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual({ workflowId: key, cancelRequested: false, status: 'CANCELLED' });
    expect((await cli(['cancel', `missing-${key}`])).code).toBe(4);
  });

  it('batch without a TTY prints plain progress lines and the summary, exit 1 when a job failed', async () => {
    const t = tag();
    const rejected = `https://cdn.example.com/cli/${t}/rejected.jpg`;
    stack.sandbox.setReviewVerdict(rejected, { passed: false, errorCode: 'E9', errorMessage: 'no' });
    const lines = [
      imageJob(`https://cdn.example.com/cli/${t}/0.jpg`),
      imageJob(rejected),
      { key: `cli-batch-key-${t}`, input: imageJob(`https://cdn.example.com/cli/${t}/2.jpg`) },
    ].map((j) => JSON.stringify(j));
    const file = join(mkdtempSync(join(tmpdir(), 'cli-batch-')), 'jobs.jsonl');
    writeFileSync(file, `${lines.join('\n')}\n`);
    const run = await cli([
      'batch',
      '--file',
      file,
      '--id',
      `cli-batch-${t}`,
      '--concurrency',
      '2',
      '--poll-ms',
      '200',
      '--json',
    ]);
    expect(run.code, run.stderr).toBe(1);
    const summary = JSON.parse(run.stdout) as {
      total: number;
      counts: Record<string, number>;
      outcomes: Array<{ status: string }>;
    };
    expect(summary.total).toBe(3);
    expect(summary.counts).toMatchObject({ succeeded: 2, failed: 1 });
    expect(summary.outcomes.map((o) => o.status)).toEqual(['succeeded', 'failed', 'succeeded']);
    expect(run.stderr).toMatch(/^progress: \d+(\/3)? done · /m);
    expect(run.stderr).not.toContain('\r');

    const text = await cli(['batch', '--file', file, '--id', `cli-batch-${t}`]);
    expect(text.code).toBe(1);
    expect(text.stderr).toContain('already started; following that batch');
    expect(text.stdout).toContain(`batch cli-batch-${t}: 3 jobs: 2 succeeded, 1 failed`);
    expect(text.stdout).toContain('job 1 (line 2) failed: ReviewRejected');
  });

  it('batch on a terminal draws a progress bar', async () => {
    const t = tag();
    const jobs = JSON.stringify([0, 1, 2, 3].map((i) => imageJob(`https://cdn.example.com/cli-tty/${t}/${i}.jpg`)));
    const file = join(mkdtempSync(join(tmpdir(), 'cli-tty-')), 'jobs.json');
    writeFileSync(file, jobs);
    const command = [
      process.execPath,
      '--import',
      'tsx',
      cliPath,
      'batch',
      '--jobs-file',
      file,
      '--id',
      `cli-tty-${t}`,
      '--concurrency',
      '2',
      '--poll-ms',
      '100',
    ]
      .map((a) => `'${a.replace(/'/g, `'\\''`)}'`)
      .join(' ');
    // `script` runs the CLI in a pseudo-terminal, as a person at a terminal would.
    const { stdout } = await promisify(execFile)('script', ['-qec', command, '/dev/null'], {
      cwd: repoRoot,
      env: cliEnv(stack.taskQueue),
      timeout: 120_000,
    });
    // eslint-disable-next-line no-control-regex -- the terminal's erase-line sequence is what is checked
    expect(stdout).toMatch(/\r\x1b\[2K\[[#-]{30}\] +\d+% \d+\/4 done/);
    expect(stdout).toContain('[##############################] 100% 4/4 done');
    expect(stdout).toContain(`batch cli-tty-${t}: 4 jobs: 4 succeeded`);
    expect(stdout).not.toContain('progress: ');
  });

  it('schedule create, list and delete, with JSON output and exit 4 for a missing schedule', async () => {
    const id = `cli-sched-${tag()}`;
    const jobs = JSON.stringify([imageJob()]);
    const created = await cli([
      'schedule',
      'create',
      '--id',
      id,
      '--every',
      '1h',
      '--jobs',
      jobs,
      '--paused',
      '--json',
    ]);
    expect(created.code, created.stderr).toBe(0);
    expect(JSON.parse(created.stdout)).toEqual({ scheduleId: id, created: true });
    const duplicate = await cli(['schedule', 'create', '--id', id, '--cron', '0 3 * * *', '--jobs', jobs]);
    expect(duplicate.code).toBe(5);

    let listed: Array<{ scheduleId: string; everyMs: number[]; paused: boolean }> = [];
    for (let i = 0; i < 40 && !listed.some((s) => s.scheduleId === id); i++) {
      const list = await cli(['schedule', 'list', '--json']);
      expect(list.code).toBe(0);
      listed = JSON.parse(list.stdout) as typeof listed;
      if (!listed.some((s) => s.scheduleId === id)) await new Promise((r) => setTimeout(r, 500));
    }
    expect(listed.find((s) => s.scheduleId === id)).toMatchObject({ everyMs: [3_600_000], paused: true });

    expect((await cli(['schedule', 'delete', id, '--json'])).code).toBe(0);
    const again = await cli(['schedule', 'delete', id, '--json']);
    expect(again.code).toBe(4);
    expect(JSON.parse(again.stdout)).toMatchObject({ error: { code: 'not_found' } });
    expect((await cli(['schedule', 'create', '--id', id, '--jobs', jobs])).code).toBe(2);
  });
});
