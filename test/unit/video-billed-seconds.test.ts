// The seconds of video a create is charged against a tenant's daily budget (issue 36, item 4): one
// function for the native create (ReviewThenGenerate) and every gateway entry point (GenerateAndPoll),
// reading the field each one's provider bills by, and a create whose seconds cannot be known is refused
// where a budget in seconds applies, never charged as 0.
import { ApplicationFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { videoSlotFor } from '../../src/activities/admission-limits.js';
import type { VideoAdmissionSettings } from '../../src/config/admission.js';
import { billedSecondsOf } from '../../src/model/video/billed-seconds.js';

const settings = (budgets: VideoAdmissionSettings['budgets']): VideoAdmissionSettings => ({
  key: 'video@test',
  maxTasksInFlight: 10,
  byModel: {},
  budgets,
});

function refusal(run: () => unknown): ApplicationFailure {
  try {
    run();
  } catch (err) {
    expect(err).toBeInstanceOf(ApplicationFailure);
    return err as ApplicationFailure;
  }
  throw new Error('not refused');
}

describe('billedSecondsOf: the seconds each entry point bills by', () => {
  it.each([
    ['native', { model: 'm', content: [], duration: 5 }, { seconds: 5 }],
    ['native', { model: 'm', content: [], duration: 2.5 }, { seconds: 2.5 }],
    ['unifiedVideo', { model: 'm', prompt: 'p', duration: 8 }, { seconds: 8 }],
    ['vendorA', { model_name: 'a', prompt: 'p', duration: '5' }, { seconds: 5 }],
    ['vendorB', { model: 'b', prompt: 'p', duration: 4 }, { seconds: 4 }],
    ['videos', { model: 'v', prompt: 'p', seconds: '12' }, { seconds: 12 }],
    ['aigcImages', { prompt: 'p' }, { seconds: 0 }],
  ] as const)('%s %j: %j', (kind, body, expected) => {
    expect(billedSecondsOf(kind, body)).toEqual(expected);
  });

  it.each([
    ['native', {}, 'duration'],
    ['vendorA', { duration: 'five' }, 'duration'],
    ['vendorB', { duration: 0 }, 'duration'],
    ['unifiedVideo', { duration: -3 }, 'duration'],
    ['videos', { duration: 4 }, 'seconds'],
    ['videos', { seconds: '' }, 'seconds'],
  ] as const)('%s %j: unknown, naming %s', (kind, body, field) => {
    expect(billedSecondsOf(kind, body)).toEqual({ unknown: field });
  });
});

describe('videoSlotFor: one way to charge, for both workflows', () => {
  const budgeted = settings({ t: { seconds: 10 }, default: { seconds: 10 }, counted: { tasks: 3 } });

  it('charges the native create and a gateway create the same seconds', () => {
    const native = videoSlotFor(budgeted, 't', { kind: 'native', body: { model: 'm', duration: 5 }, field: 'task' });
    const gateway = videoSlotFor(budgeted, 't', {
      kind: 'vendorA',
      body: { model_name: 'a', duration: '5' },
      field: 'body',
    });
    expect([native?.seconds, gateway?.seconds]).toEqual([5, 5]);
    expect(videoSlotFor(budgeted, 't', { kind: 'videos', body: { seconds: '8' }, field: 'body' })?.seconds).toBe(8);
  });

  it('refuses a create of unknown seconds where its tenant (or `default`) has a budget in seconds, naming the field', () => {
    const rtg = refusal(() => videoSlotFor(budgeted, 't', { kind: 'native', body: { model: 'm' }, field: 'task' }));
    expect(rtg.type).toBe('InvalidInput');
    expect(rtg.nonRetryable).toBe(true);
    expect(rtg.message).toMatch(/^invalid input: task\.duration: is required: tenant t has a daily budget in seconds/);
    expect(rtg.details?.[0]).toMatchObject({ problems: [{ field: 'task.duration' }] });
    const gap = refusal(() => videoSlotFor(budgeted, undefined, { kind: 'videos', body: {}, field: 'body' }));
    expect(gap.message).toMatch(/^invalid input: body\.seconds: is required: tenant default has a daily budget/);
  });

  it('charges nothing it cannot know only where no budget in seconds applies', () => {
    const noSeconds = { kind: 'native' as const, body: { model: 'm' }, field: 'task' as const };
    expect(videoSlotFor(budgeted, 'counted', noSeconds)).toMatchObject({ seconds: undefined });
    expect(videoSlotFor(settings(undefined), 'other', noSeconds)).toMatchObject({ seconds: undefined });
    expect(videoSlotFor(undefined, 't', noSeconds)).toBeUndefined();
  });
});
