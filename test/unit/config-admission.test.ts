// The provider-quota variables (src/config/admission.ts): unset is no limit; a bad value is a
// ConfigError naming the variable and the rule, never the value.
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/env.js';
import { loadAdmissionConfig, parseModelLimits } from '../../src/config/admission.js';

const base = { video: 'https://Video.Example.com:8443/api', review: 'https://review.example.com' };

describe('loadAdmissionConfig', () => {
  it('is off when no limit is set, whatever else is', () => {
    expect(loadAdmissionConfig({}, base)).toEqual({});
    expect(loadAdmissionConfig({ VIDEO_MAX_TASKS_IN_FLIGHT: '', ADMISSION_LEASE_MS: '60000' }, base)).toEqual({});
  });

  it('keys the quota by the provider host, or by VIDEO_QUOTA_ACCOUNT', () => {
    expect(loadAdmissionConfig({ VIDEO_MAX_TASKS_IN_FLIGHT: '10' }, base)).toEqual({
      video: { key: 'video@video.example.com:8443', maxTasksInFlight: 10, byModel: {}, leaseMs: undefined },
    });
    expect(
      loadAdmissionConfig(
        { VIDEO_MAX_TASKS_IN_FLIGHT_BY_MODEL: 'model-a:5, model-b:2', VIDEO_QUOTA_ACCOUNT: 'acct-1' },
        base,
      ).video,
    ).toMatchObject({ key: 'video@acct-1', maxTasksInFlight: undefined, byModel: { 'model-a': 5, 'model-b': 2 } });
  });

  it.each([
    [{ VIDEO_MAX_TASKS_IN_FLIGHT: '0' }, /VIDEO_MAX_TASKS_IN_FLIGHT .*>=1/],
    [{ VIDEO_MAX_TASKS_IN_FLIGHT: '2.5' }, /VIDEO_MAX_TASKS_IN_FLIGHT .*expected int/],
    [{ VIDEO_MAX_TASKS_IN_FLIGHT: 'ten' }, /VIDEO_MAX_TASKS_IN_FLIGHT/],
    [
      { VIDEO_MAX_TASKS_IN_FLIGHT_BY_MODEL: 'model-a' },
      /VIDEO_MAX_TASKS_IN_FLIGHT_BY_MODEL entry 1 must be model:limit/,
    ],
    [{ VIDEO_MAX_TASKS_IN_FLIGHT_BY_MODEL: 'a:1,b:0' }, /entry 2 \(b\) must have a whole limit of at least 1/],
    [{ VIDEO_MAX_TASKS_IN_FLIGHT_BY_MODEL: 'a:1,a:2' }, /entry 2 repeats the model a/],
    [{ VIDEO_MAX_TASKS_IN_FLIGHT: '2', VIDEO_QUOTA_ACCOUNT: 'two words' }, /VIDEO_QUOTA_ACCOUNT must be printable/],
    [{ VIDEO_MAX_TASKS_IN_FLIGHT: '2', ADMISSION_LEASE_MS: '1000' }, /ADMISSION_LEASE_MS .*>=5000/],
    [{ REVIEW_MAX_TASKS_IN_FLIGHT: '0' }, /REVIEW_MAX_TASKS_IN_FLIGHT .*>=1/],
    [{ REVIEW_MAX_SUBMITS_PER_MINUTE: '1.5' }, /REVIEW_MAX_SUBMITS_PER_MINUTE .*expected int/],
    [{ REVIEW_MAX_TASKS_IN_FLIGHT: '2', REVIEW_QUOTA_ACCOUNT: 'two words' }, /REVIEW_QUOTA_ACCOUNT must be printable/],
    [{ REVIEW_MAX_TASKS_IN_FLIGHT: '2', REVIEW_QUOTA_ACCOUNT: 'a'.repeat(201) }, /REVIEW_QUOTA_ACCOUNT .*<=200/],
  ])('refuses %o, naming the variable and the rule', (env, message) => {
    expect(() => loadAdmissionConfig(env, base)).toThrow(ConfigError);
    expect(() => loadAdmissionConfig(env, base)).toThrow(message);
  });

  it('keys the review quota by the review host, apart from the video one', () => {
    expect(
      loadAdmissionConfig(
        { REVIEW_MAX_TASKS_IN_FLIGHT: '3', REVIEW_MAX_SUBMITS_PER_MINUTE: '40', ADMISSION_TENANT_WEIGHTS: 'a:2' },
        base,
      ),
    ).toEqual({
      review: {
        key: 'review@review.example.com',
        maxTasksInFlight: 3,
        maxSubmitsPerMinute: 40,
        leaseMs: undefined,
        tenantWeights: { a: 2 },
      },
    });
    const both = loadAdmissionConfig({ REVIEW_MAX_SUBMITS_PER_MINUTE: '40', VIDEO_MAX_TASKS_IN_FLIGHT: '2' }, base);
    expect([both.video?.key, both.review?.key]).toEqual(['video@video.example.com:8443', 'review@review.example.com']);
  });

  it('keys the review quota by REVIEW_QUOTA_ACCOUNT when set, whatever the host, and the video one apart', () => {
    const named = loadAdmissionConfig(
      { REVIEW_MAX_TASKS_IN_FLIGHT: '3', REVIEW_QUOTA_ACCOUNT: 'review-acct', VIDEO_MAX_TASKS_IN_FLIGHT: '2' },
      base,
    );
    expect([named.video?.key, named.review?.key]).toEqual(['video@video.example.com:8443', 'review@review-acct']);
    // Two deployments through different hosts (a proxy) share the account's gate.
    const proxied = loadAdmissionConfig(
      { REVIEW_MAX_SUBMITS_PER_MINUTE: '40', REVIEW_QUOTA_ACCOUNT: 'review-acct' },
      { ...base, review: 'https://review-proxy.internal:9000' },
    );
    expect(proxied.review?.key).toBe('review@review-acct');
    // Empty is unset: the host, as before.
    expect(loadAdmissionConfig({ REVIEW_MAX_TASKS_IN_FLIGHT: '3', REVIEW_QUOTA_ACCOUNT: '' }, base).review?.key).toBe(
      'review@review.example.com',
    );
    // Alone it sets no limit, as VIDEO_QUOTA_ACCOUNT.
    expect(loadAdmissionConfig({ REVIEW_QUOTA_ACCOUNT: 'review-acct' }, base)).toEqual({});
  });

  it('reads tenant weights, and refuses one outside 0.001 to 1000', () => {
    expect(
      loadAdmissionConfig({ VIDEO_MAX_TASKS_IN_FLIGHT: '4', ADMISSION_TENANT_WEIGHTS: 'big:2.5, small:0.5' }, base)
        .video?.tenantWeights,
    ).toEqual({ big: 2.5, small: 0.5 });
    expect(() =>
      loadAdmissionConfig({ VIDEO_MAX_TASKS_IN_FLIGHT: '4', ADMISSION_TENANT_WEIGHTS: 'a:0' }, base),
    ).toThrow(/ADMISSION_TENANT_WEIGHTS entry 1 \(a\) must have a weight from 0.001 to 1000/);
  });

  it('reads model names with colons in them by their last colon', () => {
    expect(parseModelLimits('vendor:model-x:3')).toEqual({ 'vendor:model-x': 3 });
  });
});
