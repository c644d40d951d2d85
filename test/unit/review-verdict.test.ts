// The verdict on a finished review task, from wire records as the service sends them. Milliseconds.
import { ApplicationFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import type { ReviewTaskSummary } from '../../src/contract/index.js';
import { normalizeReviewTask } from '../../src/model/review/schemas.js';
import { holdsExactly, ReviewItemsRejected, verdict } from '../../src/workflows/review-stage.js';

const A = 'https://cdn.example.com/a.jpg';
const B = 'https://cdn.example.com/b.jpg';
const batch = { assetType: 'Image' as const, urls: [A, B] };

function task(record: Record<string, unknown>): ReviewTaskSummary {
  return { ...normalizeReviewTask({ code: 200, task_id: 'r1', ...record }), queries: 1 };
}
const item = (source: string, passed: boolean, extra: Record<string, unknown> = {}) => ({
  source_url: source,
  asset_id: `id-${source.slice(-5)}`,
  asset_url: `Asset://${source.slice(-5)}`,
  downstream_final_url: `https://signed.example.com/${source.slice(-5)}?sig=x`,
  submit_review_status: passed ? 1 : 0,
  ...extra,
});

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected a throw');
}

describe('verdict', () => {
  it('completed, every item passed: the Asset:// addresses, never the downstream URL', () => {
    const assets = verdict(task({ status: 'completed', result: { items: [item(A, true), item(B, true)] } }), batch);
    expect(assets).toEqual([
      { sourceUrl: A, assetUrl: 'Asset://a.jpg', assetId: 'id-a.jpg' },
      { sourceUrl: B, assetUrl: 'Asset://b.jpg', assetId: 'id-b.jpg' },
    ]);
  });

  it('an item with submit_review_status 0, or missing, or approved without Asset://: rejected with its error fields', () => {
    const err = thrown(() =>
      verdict(
        task({
          status: 'completed',
          result: {
            items: [
              item(A, false, { error_code: 'E1', error_message: 'face unclear' }),
              item(B, true, { asset_url: 'https://x/y.jpg' }),
            ],
          },
        }),
        { ...batch, urls: [A, B, 'https://cdn.example.com/c.jpg'] },
      ),
    );
    expect(err).toBeInstanceOf(ReviewItemsRejected);
    expect((err as ReviewItemsRejected).items).toEqual([
      { url: A, reviewTaskId: 'r1', error_code: 'E1', error_message: 'face unclear' },
      { url: B, reviewTaskId: 'r1', error_message: 'approved item carries no Asset:// asset_url' },
      { url: 'https://cdn.example.com/c.jpg', reviewTaskId: 'r1', error_message: 'no review result for this URL' },
    ]);
  });

  it('cancelled: ReviewCancelled; failed or anything else not completed: ReviewFailed', () => {
    const cancelled = thrown(() => verdict(task({ status: 'cancelled' }), batch)) as ApplicationFailure;
    expect(cancelled.type).toBe('ReviewCancelled');
    const failed = thrown(() => verdict(task({ status: 'failed', message: 'quota' }), batch)) as ApplicationFailure;
    expect(failed.type).toBe('ReviewFailed');
    expect(thrown(() => verdict(task({ status: 'weird' }), batch))).toMatchObject({ type: 'ReviewFailed' });
  });
});

describe('holdsExactly', () => {
  it('matches a task to a batch by its source URLs, in any order, and nothing else', () => {
    const t = task({ status: 'completed', result: { items: [item(B, true), item(A, true)] } });
    expect(holdsExactly(t, [A, B])).toBe(true);
    expect(holdsExactly(t, [A])).toBe(false);
    expect(holdsExactly(t, [A, B, 'https://cdn.example.com/c.jpg'])).toBe(false);
  });
});
