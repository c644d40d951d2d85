// The soak's command line: the sandbox's provider quotas it turns on.
import { describe, expect, it } from 'vitest';
import { parseSoakOptions } from '../soak/options.js';

describe('the soak options', () => {
  it('the soak: --video-quota / --review-quota turn a quota on; off by default', () => {
    expect(parseSoakOptions(['--quick']).sandbox).toEqual({ reviewDurationMs: 1_000, videoDurationMs: 10_000 });
    expect(parseSoakOptions(['--quick', '--video-quota', '4', '--review-quota', '2']).sandbox).toMatchObject({
      videoMaxTasksInFlight: 4,
      reviewMaxTasksInFlight: 2,
    });
    expect(() => parseSoakOptions(['--video-quota', '0'])).toThrow(/--video-quota must be an integer >= 1/);
  });
});
