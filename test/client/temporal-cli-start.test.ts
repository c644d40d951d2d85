// The job can be started without our code: the `temporal workflow start` command of docs/starting-jobs.md, run through the
// real Temporal CLI binary with its JSON, completes against the sandbox, and a repeated start with
// the same workflow id returns the same run.
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { locateTemporalCli } from '../../scripts/temporal-cli.mjs';
import { describeRun } from '../../src/client/index.js';
import type { ReviewThenGenerateResult } from '../../src/job/definitions.js';
import { countOps, startStack, type Stack } from '../support/stack.js';
import { temporalAddress, testClient } from '../support/temporal.js';

const run = promisify(execFile);
const readmeJson = readFileSync(new URL('./fixtures/readme-job.json', import.meta.url), 'utf8');

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => stack.stop());

/** That command, with this test's server, task queue and id. */
function readmeCommand(workflowId: string, taskQueue: string): string[] {
  return [
    'workflow',
    'start',
    '--address',
    temporalAddress(),
    '--namespace',
    inject('temporalNamespace'),
    '--type',
    'ReviewThenGenerate',
    '--task-queue',
    taskQueue,
    '--workflow-id',
    workflowId,
    '--id-conflict-policy',
    'UseExisting',
    '--id-reuse-policy',
    'RejectDuplicate',
    '--search-attribute',
    'ReviewStage="reviewing"',
    '--search-attribute',
    'VideoModel="video-model-1"',
    '--static-summary',
    'video-model-1 · 1 media · "A golden retriever runs along the beach at sunset…"',
    '--input',
    readmeJson,
  ];
}

describe('temporal workflow start (real Temporal CLI)', () => {
  it('completes a job from the documented JSON, and a repeated start returns the same run', async () => {
    const cli = locateTemporalCli();
    expect(cli.path, 'the Temporal CLI binary (node scripts/temporal-cli.mjs installs it)').toBeTruthy();
    stack.sandbox.reset();
    const workflowId = `order-${randomUUID()}`;
    const first = await run(cli.path!, [...readmeCommand(workflowId, stack.taskQueue), '--output', 'json'], {
      timeout: 60_000,
    });
    const started = JSON.parse(first.stdout) as { workflowId: string; runId: string };
    expect(started.workflowId).toBe(workflowId);

    const again = await run(cli.path!, [...readmeCommand(workflowId, stack.taskQueue), '--output', 'json'], {
      timeout: 60_000,
    });
    expect((JSON.parse(again.stdout) as { runId: string }).runId).toBe(started.runId);

    const client = await testClient();
    const result = (await client.workflow.getHandle(workflowId).result()) as ReviewThenGenerateResult;
    expect(result.state).toBe('succeeded');
    expect(result.assets[0]!.assetUrl).toMatch(/^Asset:\/\//);
    expect(countOps(stack.sandbox)).toEqual({
      'review.submitAsync': 1,
      'review.query': 1,
      'video.create': 1,
      'video.get': 1,
    });

    // Started with ReviewStage set, the run keeps its search attributes up to date: the last working stage
    // it reached stays, and ExecutionStatus says how it ended.
    const d = await describeRun(client, workflowId);
    expect(d.status).toBe('COMPLETED');
    expect(d.searchAttributes).toMatchObject({
      ReviewStage: 'generating',
      VideoModel: 'video-model-1',
      VideoTaskId: result.taskId,
    });
    expect(d.staticSummary).toContain('video-model-1');

    // `temporal workflow result` prints the same result.
    const printed = await run(
      cli.path!,
      ['workflow', 'result', '--address', temporalAddress(), '--workflow-id', workflowId, '--output', 'json'],
      { timeout: 60_000 },
    );
    expect(printed.stdout).toContain(result.taskId);
  });
});
