// How a failed call is classified (src/services/classify.ts): whether the request may have taken effect
// (ambiguous) and whether a retry can help. The spec fixes 400/401 (final) and 500/time-out (ambiguous).
import { describe, expect, it } from 'vitest';
import { classifyStatus, malformedResponseError, networkError, timeoutError } from '../../src/services/classify.js';

const ctx = { service: 'video' as const, operation: 'video.create' };

describe('classification', () => {
  it.each([
    [400, false, false],
    [401, false, false],
    [403, false, false],
    [404, false, false],
    [409, false, false],
    [422, false, false],
    [429, false, true],
    [503, false, true],
    [500, true, true],
    [502, true, true],
    [504, true, true],
  ])('HTTP %i: ambiguous %s, retryable %s', (status, ambiguous, retryable) => {
    expect(classifyStatus(status)).toMatchObject({ ambiguous, retryable });
  });

  it('a time-out is ambiguous once connected, not while connecting', () => {
    expect(timeoutError(ctx, 1_000, false, undefined)).toMatchObject({
      ambiguous: true,
      retryable: true,
      kind: 'timeout',
    });
    expect(timeoutError(ctx, 1_000, true, undefined)).toMatchObject({ ambiguous: false, retryable: true });
  });

  it('a network error before sending is not ambiguous; a reset after sending is', () => {
    expect(networkError(ctx, 'ECONNREFUSED', undefined)).toMatchObject({ ambiguous: false, retryable: true });
    expect(networkError(ctx, 'ERR_TLS_CERT_ALTNAME_INVALID', undefined)).toMatchObject({
      ambiguous: false,
      retryable: false,
    });
    expect(networkError(ctx, 'ECONNRESET', undefined)).toMatchObject({ ambiguous: true, retryable: true });
    expect(networkError(ctx, undefined, undefined)).toMatchObject({ ambiguous: true });
  });

  it('an unusable 2xx is ambiguous: the operation may well have taken effect', () => {
    expect(malformedResponseError(ctx, 200, 'not json', 'a body that is not JSON')).toMatchObject({
      ambiguous: true,
      retryable: true,
      status: 200,
    });
  });
});
