// The JSON Schemas in schemas/ (shipped for callers in other languages) are what the zod schemas generate,
// and real values validate against them with a validator we did not write (ajv): every job input, result
// and public failure's details of the golden histories, and a progress answer as a run builds it.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { contractJsonSchemas, schemaFileText } from '../../src/job/json-schemas.js';
import { FailureType } from '../../src/model/failure-types.js';
import type { ReviewTaskSummary } from '../../src/contract/index.js';
import { validateReviewThenGenerateInput } from '../../src/job/input.js';
import type { RunActivities } from '../../src/workflows/run-activities.js';
import { RemoteTask } from '../../src/workflows/remote-task.js';
import { reviewTaskRules } from '../../src/workflows/review-stage.js';
import { RunState } from '../../src/workflows/run-state.js';
import { readVersion, recordedVersions } from '../golden/history-file.js';

const schemasDir = fileURLToPath(new URL('../../schemas/', import.meta.url));
const generated = contractJsonSchemas();

function committedFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((d) => d.isFile())
    .map((d) => relative(schemasDir, join(d.parentPath, d.name)).split('\\').join('/'))
    .sort();
}

const ajv = new Ajv2020({ strict: true, allErrors: true });
const validator = (name: string) => ajv.getSchema(name) ?? ajv.compile({ ...generated[name], $id: name });

function expectValid(name: string, value: unknown, what: string): void {
  const validate = validator(name);
  const ok = validate(value);
  expect(ok, `${what} against ${name}: ${ajv.errorsText(validate.errors)}`).toBe(true);
}

interface Payloads {
  payloads?: Array<{ data?: string }>;
}
const decode = (p: Payloads | undefined): unknown[] =>
  (p?.payloads ?? []).map((x) => JSON.parse(Buffer.from(x.data ?? '', 'base64').toString('utf8')) as unknown);

interface Event {
  eventType: string;
  workflowExecutionStartedEventAttributes?: { input?: Payloads };
  workflowExecutionCompletedEventAttributes?: { result?: Payloads };
  workflowExecutionFailedEventAttributes?: {
    failure?: { applicationFailureInfo?: { type?: string; details?: Payloads } };
  };
}

const golden = recordedVersions()
  .flatMap((v) => readVersion(v))
  .filter((f) => f.content.workflowType === 'ReviewThenGenerate')
  .map((f) => ({ file: f.file, events: (f.content.history as { events: Event[] }).events }));

describe('JSON Schemas (schemas/)', () => {
  it('are exactly what the zod schemas generate: run `npm run schemas` after changing the contract', () => {
    expect(committedFiles(schemasDir)).toEqual(Object.keys(generated).sort());
    for (const [name, schema] of Object.entries(generated))
      expect(readFileSync(join(schemasDir, name), 'utf8'), name).toBe(schemaFileText(schema));
  });

  it('cover the input, result, progress, the details of every public failure type and the webhook body', () => {
    const details = Object.values(FailureType).map((t) => `failure-details/${t}.schema.json`);
    expect(Object.keys(generated).sort()).toEqual(
      [
        'job-input.schema.json',
        'job-progress.schema.json',
        'job-result.schema.json',
        'notification.schema.json',
        'notification-progress.schema.json',
        ...details,
      ].sort(),
    );
  });

  it('accept the input, result and failure details of every golden ReviewThenGenerate history', () => {
    expect(golden.length).toBeGreaterThan(10);
    const seen = { input: 0, result: 0, details: new Set<string>() };
    for (const { file, events } of golden) {
      const [input] = decode(events[0]?.workflowExecutionStartedEventAttributes?.input);
      const last = events.at(-1)!;
      const failure = last.workflowExecutionFailedEventAttributes?.failure?.applicationFailureInfo;
      // The invalid-input history's input breaks the rules on purpose: it is read as a failure only.
      if (failure?.type !== FailureType.InvalidInput) {
        expectValid('job-input.schema.json', input, `${file} input`);
        seen.input++;
      }
      const [result] = decode(last.workflowExecutionCompletedEventAttributes?.result);
      if (result !== undefined) {
        expectValid('job-result.schema.json', result, `${file} result`);
        seen.result++;
      }
      if (failure?.type) {
        const [details] = decode(failure.details);
        if (details !== undefined) {
          expectValid(`failure-details/${failure.type}.schema.json`, details, `${file} ${failure.type} details`);
          seen.details.add(failure.type);
        }
      }
    }
    expect(seen.input).toBeGreaterThan(10);
    expect(seen.result).toBeGreaterThan(3);
    expect(seen.details.size).toBeGreaterThanOrEqual(Object.values(FailureType).length - 1);
  });

  it('accept a progress answer as a run builds it, and refuse values that break them', () => {
    const v = validateReviewThenGenerateInput({
      task: { model: 'm', content: [{ type: 'image_url', image_url: { url: 'https://cdn.example.com/a.jpg' } }] },
      review: {},
    });
    if (!v.ok) throw new Error('fixture input is invalid');
    const run = new RunState(
      v.job,
      {} as RunActivities,
      () => {},
      () => {},
    );
    expectValid('job-progress.schema.json', JSON.parse(JSON.stringify(run.progress)), 'a new run');
    run.planReviewTask(
      0,
      { assetType: 'Image', urls: ['https://cdn.example.com/a.jpg'] },
      new RemoteTask(reviewTaskRules(v.job)),
    );
    run.setReviewTask(0, 'r1', 'pending');
    run.observeReview(0, {
      taskId: 'r1',
      status: 'processing',
      doneCount: 0,
      totalCount: 1,
      queries: 2,
    } as unknown as ReviewTaskSummary);
    run.setStage('generating');
    run.setTaskId('v1');
    run.noteError('create ambiguous (1): HTTP 500');
    expectValid('job-progress.schema.json', JSON.parse(JSON.stringify(run.progress)), 'a generating run');

    expect(validator('job-progress.schema.json')({ ...run.progress, stage: 'dreaming' })).toBe(false);
    expect(validator('job-input.schema.json')({ task: {}, colour: 'red' })).toBe(false);
    expect(validator('job-input.schema.json')({ task: {}, timing: { videoPollIntervalMs: 1.5 } })).toBe(false);
    expect(validator('job-result.schema.json')({ taskId: 't', state: 'failed', assets: [] })).toBe(false);
    // The webhook body: test/workflows/notify.test.ts validates every one it receives; a wrong type fails.
    const notification = {
      type: 'job.failed',
      timestamp: '2026-01-01T00:00:00.000Z',
      data: { event: 'failed', workflowId: 'k', businessKey: 'k', runId: 'r', stage: 'failed' },
    };
    expectValid('notification.schema.json', notification, 'a notification');
    expect(validator('notification.schema.json')({ ...notification, type: 'job.lost' })).toBe(false);
  });
});
