// `input.task` is the create body's type, inferred from its zod schema (src/model/video/schemas.ts): what
// validation refuses, an editor refuses too. The @ts-expect-error lines are checked by `tsc --noEmit`
// (npm test runs it): each fails the compile when the line type-checks. Beside them, validation refuses the
// same inputs at run time, with messages in the project's words rather than zod's.
import type { Client } from '@temporalio/client';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { InvalidJobInputError } from '../../src/client/errors.js';
import { startReviewThenGenerate } from '../../src/client/start.js';
import { validateReviewThenGenerateInput, type ReviewThenGenerateInput } from '../../src/job/input.js';

const content = [
  { type: 'text' as const, text: 'A dog runs on the beach' },
  { type: 'image_url' as const, image_url: { url: 'https://cdn.example.com/dog.jpg' }, role: 'reference_image' },
];

function rules(input: unknown): string[] {
  const v = validateReviewThenGenerateInput(input);
  if (v.ok) throw new Error('expected problems');
  return v.problems.map((p) => `${p.field}: ${p.rule}`);
}

describe('ReviewThenGenerateInput.task: the create body type', () => {
  it('is the create body as a caller writes it, without callback_url', () => {
    type Task = ReviewThenGenerateInput['task'];
    expectTypeOf<Task['model']>().toEqualTypeOf<string>();
    expectTypeOf<Task['duration']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<Task['content'][number]['type']>().toEqualTypeOf<'text' | 'image_url' | 'video_url' | 'audio_url'>();
    expectTypeOf<Task>().not.toHaveProperty('callback_url');
  });

  it('refuses at compile time what validation refuses at run time: a string duration, an unknown field', () => {
    const wrongDuration: ReviewThenGenerateInput = {
      // @ts-expect-error duration is a number of seconds
      task: { model: 'video-model-1', content, duration: '5' },
    };
    const unknownField: ReviewThenGenerateInput = {
      // @ts-expect-error the create body has no field `durration`
      task: { model: 'video-model-1', content, durration: 5 },
    };
    // @ts-expect-error model is required
    const noModel: ReviewThenGenerateInput = { task: { content } };
    expect(rules(wrongDuration)).toEqual(['task.duration: must be a positive number of seconds']);
    // At run time the create body passes unknown fields through to the service (its spec allows them):
    // the closed type is what catches a misspelt one.
    expect(validateReviewThenGenerateInput(unknownField).ok).toBe(true);
    expect(rules(noModel)).toEqual(['task.model: is required (the model name)']);
  });
});

describe("the input problems are in the project's words, not zod's", () => {
  const task = { model: 'video-model-1', content };
  it.each([
    ['a priority above 5', { task, priority: 9 }, 'priority: must be an integer from 1 (highest) to 5'],
    ['no task', { callbacks: true }, 'task: is required (the create body: model, content, ...)'],
    ['a task that is not an object', { task: 'make a video' }, 'task: must be an object (the create body)'],
    ['callbacks not a boolean', { task, callbacks: 'yes' }, 'callbacks: must be true or false'],
    ['an unknown review mode', { task, review: { mode: 'fast' } }, 'review.mode: must be one of "async", "sync"'],
    ['an unknown timing field', { task, timing: { pollEveryMs: 5 } }, 'timing: has unknown field(s) "pollEveryMs"'],
    ['a timing below its floor', { task, timing: { callTimeoutMs: 5 } }, 'timing.callTimeoutMs: must be at least 1000'],
    ['an empty batch id', { task, batchId: '' }, 'batchId: must not be empty'],
  ])('%s', (_what, input, rule) => {
    const found = rules(input);
    expect(found).toContain(rule);
    for (const r of found)
      expect(r).not.toMatch(/Too (big|small)|Invalid input|expected \w+, received|Unrecognized key/);
  });
});

describe('startReviewThenGenerate refuses before it uses the client, each problem named', () => {
  it('names the whole input `input` (not `input.(input)`) and the business key in our words', async () => {
    const err = await startReviewThenGenerate(undefined as unknown as Client, {
      businessKey: 'k'.repeat(201),
      input: { task: { model: 'video-model-1', content }, urgency: 'high' } as ReviewThenGenerateInput,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidJobInputError);
    expect((err as InvalidJobInputError).problems).toEqual([
      { field: 'businessKey', rule: 'must be at most 200 characters' },
      { field: 'input', rule: expect.stringMatching(/^has unknown field\(s\) "urgency" \(known: task, /) as string },
    ]);
  });
});
