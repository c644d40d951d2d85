// The input check lists every problem in one pass: a shape error in one part (review options, timing,
// callbacks, an unknown field) hides nothing in another, and the review URLs are checked even when the
// task has problems. Pure: the same function runs in the workflow, the client helper and the batch.
import { describe, expect, it } from 'vitest';
import { parseBatchJob } from '../../src/job/batch-input.js';
import { validateReviewThenGenerateInput } from '../../src/job/input.js';

const BASE64 =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
const text = { type: 'text', text: 'A dog runs on the beach' };
const image = (url: string, role = 'reference_image') => ({ type: 'image_url', image_url: { url }, role });

function problems(input: unknown): Array<[string, string]> {
  const v = validateReviewThenGenerateInput(input);
  if (v.ok) throw new Error('expected problems');
  return v.problems.map((p) => [p.field, p.rule]);
}
const fields = (input: unknown) => problems(input).map(([f]) => f);

describe('validateReviewThenGenerateInput: every problem in one pass', () => {
  it('reports problems in every part at once, each with its field', () => {
    const input = {
      task: {
        model: 'video-model-1',
        content: [text, image(BASE64), image('https://cdn.example.com/ok.jpg')],
        ratio: '16/9',
        duration: -5,
      },
      review: {
        urls: ['https://cdn.example.com/ok.jpg', 'https://cdn.example.com/notes.txt', 'http://192.168.0.7/b.jpg'],
        groupId: 'g1',
        groupSource: 'celebrity',
      },
      callbacks: 'yes',
      timing: { videoPollIntervalMs: 1_000, pollEveryMs: 5 },
      priority: 9,
      fairnessKey: 'tenant a',
      urgency: 'high',
    };
    const found = problems(input);
    expect(found.map(([f]) => f)).toEqual([
      'task.content[1].image_url.url',
      'task.ratio',
      'task.duration',
      'review.groupSource',
      'review.urls[1]',
      'review.urls[2]',
      'callbacks',
      'timing',
      'priority',
      'fairnessKey',
      '(input)',
    ]);
    const rule = (field: string) => found.find(([f]) => f === field)![1];
    expect(rule('task.content[1].image_url.url')).toContain('base64 media is not supported');
    expect(rule('task.ratio')).toContain('<w>:<h>');
    expect(rule('task.duration')).toContain('positive number of seconds');
    expect(rule('review.groupSource')).toContain("'' or 'real_person' when review.groupId is sent");
    expect(rule('review.urls[1]')).toContain('has no supported extension');
    expect(rule('review.urls[2]')).toContain('192.168.0.7 is a private address (192.168.0.0/16)');
    expect(rule('callbacks')).toBe('must be true or false');
    expect(rule('timing')).toContain('pollEveryMs');
    expect(rule('priority')).toMatch(/5/);
    expect(rule('fairnessKey')).toContain('without spaces');
    expect(rule('(input)')).toContain('"urgency"');
  });

  it('a shape error in the review options (groupSource not a string) hides neither the task nor the URLs', () => {
    expect(
      fields({
        task: { model: '', content: [text, image('https://cdn.example.com/a.jpg')] },
        review: { groupSource: 42, mode: 'later', urls: ['ftp://cdn.example.com/a.jpg'], color: 'red' },
      }),
    ).toEqual(['task.model', 'review.groupSource', 'review.mode', 'review', 'review.urls[0]']);
  });

  it('review.urls absent: the URLs are read from the task content as far as it can be read', () => {
    expect(
      fields({
        task: {
          model: 'm',
          content: [text, image('https://cdn.example.com/a.gif.exe'), { type: 'video_url' }],
          resolution: '',
        },
        review: {},
      }),
    ).toEqual(['task.content[2].video_url.url', 'task.resolution', 'task.content']);
  });

  it('a task that is not an object still lets the other parts be checked', () => {
    expect(fields({ task: [], review: { urls: [] }, batchId: '' })).toEqual(['task', 'review.urls', 'batchId']);
    expect(fields({ review: 'all' })).toEqual(['task', 'review']);
  });

  it('media addresses are judged by the host the URL parser reads, in the task and in review.urls (issue 24)', () => {
    const seen = [
      'http://127.0.0.1\\@media.example.com/x.jpg',
      'http://%31%32%37.0.0.1/x.jpg',
      'http://100.64.0.1/x.jpg',
    ];
    const found = problems({
      task: { model: 'm', content: [text, ...seen.map((u) => image(u))] },
      review: { urls: seen },
    });
    expect(found).toEqual([
      ['task.content[1].image_url.url', expect.stringContaining('127.0.0.1 is a loopback address (127.0.0.0/8)')],
      ['task.content[2].image_url.url', expect.stringContaining('127.0.0.1 is a loopback address (127.0.0.0/8)')],
      ['task.content[3].image_url.url', expect.stringContaining('100.64.0.1 is a carrier-grade NAT address')],
      ['review.urls[0]', expect.stringContaining('127.0.0.1 is a loopback address (127.0.0.0/8)')],
      ['review.urls[1]', expect.stringContaining('127.0.0.1 is a loopback address (127.0.0.0/8)')],
      ['review.urls[2]', expect.stringContaining('100.64.0.1 is a carrier-grade NAT address (100.64.0.0/10)')],
    ]);
  });

  it('an input that is not an object is one problem', () => {
    for (const input of [null, 'job', [1], 7]) expect(fields(input)).toEqual(['(input)']);
  });

  it('values the spec gives as examples or known values pass (docs/rules.md: decisions where the spec is silent)', () => {
    const v = validateReviewThenGenerateInput({
      task: {
        model: 'm',
        content: [
          text,
          image('https://cdn.example.com/a.jpg', 'character'),
          image('https://cdn.example.com/b.jpg', 'first_frame'),
        ],
        resolution: '1080P',
        ratio: 'adaptive',
        duration: 4.5,
      },
      review: { groupSource: 'anything' },
    });
    expect(v.ok).toBe(true);
    if (v.ok) expect(v.job.review).toEqual({ groupSource: 'anything', mode: 'async' });
  });
});

describe('the batch and the start helper use it: still everything at once', () => {
  it('parseBatchJob lists a bad key and every problem of its input', () => {
    const r = parseBatchJob({
      key: 'has space',
      input: { task: { model: 'm', content: [text], ratio: '' }, review: { groupId: 'g', groupSource: 'x' } },
    });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.problem).toMatch(/^key: must be printable/);
      expect(r.problem).toContain('task.ratio:');
      expect(r.problem).toContain('review.groupSource:');
      expect(r.problem).toContain('review.urls: nothing to review');
    }
  });
});
