// The dev server's start is tried again only when it was too slow to come up (the SDK's fixed 5 s wait).
import { describe, expect, it } from 'vitest';
import { retrySlowStart } from '../../src/dev/temporal-dev-server.js';

const slow = () =>
  new Error('Failed to start ephemeral server: ephemeral server at 127.0.0.1:1 did not start within 5s');

describe('retrySlowStart', () => {
  it('tries a slow start again, up to three attempts in all', async () => {
    let calls = 0;
    await expect(
      retrySlowStart(async () => {
        if (++calls < 3) throw slow();
        return 'up';
      }),
    ).resolves.toBe('up');
    expect(calls).toBe(3);
    calls = 0;
    await expect(
      retrySlowStart(async () => {
        calls++;
        throw slow();
      }),
    ).rejects.toThrow(/did not start within/);
    expect(calls).toBe(3);
  });

  it('throws any other error at once', async () => {
    let calls = 0;
    await expect(
      retrySlowStart(async () => {
        calls++;
        throw new Error('executable not found');
      }),
    ).rejects.toThrow('executable not found');
    expect(calls).toBe(1);
  });
});
