/** The retry policy's arithmetic: Retry-After parsing, the floor it sets, back-off bounds, the budget. */
import { describe, expect, it } from 'vitest';
import { nextDelay, parseRetryAfter, retryPolicy } from '../../src/client/retry.js';

describe('retry policy', () => {
  it('reads Retry-After as seconds or as an HTTP date', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('7', now)).toBe(7);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:30 GMT', now)).toBe(30);
    expect(parseRetryAfter(null, now)).toBeUndefined();
    expect(parseRetryAfter('soon', now)).toBeUndefined();
  });

  it('waits at least Retry-After, backs off within bounds without it, and stops at the limits', () => {
    const policy = retryPolicy({ attempts: 3, maxWaitMs: 10_000, baseDelayMs: 1000 });
    for (let i = 0; i < 50; i++) {
      const delay = nextDelay(policy, 1, 0, 2) ?? -1;
      expect(delay).toBeGreaterThanOrEqual(2000);
      expect(delay).toBeLessThanOrEqual(2250);
      const backoff = nextDelay(policy, 2, 0, undefined) ?? -1;
      expect(backoff).toBeGreaterThanOrEqual(0);
      expect(backoff).toBeLessThanOrEqual(2000);
    }
    expect(nextDelay(policy, 3, 0, 1)).toBeUndefined(); // tries used up
    expect(nextDelay(policy, 1, 9_000, 2)).toBeUndefined(); // past the wait budget
    expect(nextDelay(retryPolicy(false), 1, 0, 1)).toBeUndefined(); // retrying off
  });
});
